/** Writing a reply's JSON from parts, some of which are JSON already (a listing summary, stored terms). */

export type Field = readonly [key: string, json: string];

export const text = (value: string) => JSON.stringify(value);

/** The fields, in this order, without the object's braces. Keys are the interface's own: plain ASCII, never escaped. */
export const fieldsJson = (fields: readonly Field[]) => fields.map(([key, json]) => `"${key}":${json}`).join(',');

/** The object of these fields, in this order. */
export const objectJson = (fields: readonly Field[]) => `{${fieldsJson(fields)}}`;
