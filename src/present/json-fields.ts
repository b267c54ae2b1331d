/** Writing a reply's JSON from parts, some of which are JSON already (a listing summary, stored terms). */

export type Field = readonly [key: string, json: string];

export const text = (value: string) => JSON.stringify(value);

/** The object of these fields, in this order. Keys are the interface's own: plain ASCII, never escaped. */
export const objectJson = (fields: readonly Field[]) => `{${fields.map(([key, json]) => `"${key}":${json}`).join(',')}}`;
