/**
 * What the CLI writes, made safe for the terminal that shows it. Users write report reasons,
 * names, messages and file names; receivers write the errors the outboxes keep: any of them may
 * hold control characters a terminal obeys (an escape sequence that retitles the window, moves
 * the cursor over earlier lines or clears them) or bidirectional controls that make a line read
 * other than it is. Every line the CLI prints goes through `terminalSafe` (CliContext's out and
 * err, the help and errors of main.ts); each field of a tab-separated table through `tableRow`.
 *
 * A control is written as `\uXXXX`, its code point in JSON's escape: inside the JSON of `souk users
 * export` it is the same string, and in a table it is visible for what it is.
 */

/** C0 controls but tab and line feed, DEL, C1 controls, and the bidirectional controls (ALM, LRM, RLM, embeddings, overrides, isolates). */
// eslint-disable-next-line no-control-regex -- the controls are what it finds
const LINE_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same, with tab and line feed: within a field they would break the table's columns or lines. */
// eslint-disable-next-line no-control-regex -- as above
const FIELD_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A line (or lines) of output with every control a terminal would obey written as `\uXXXX`; tabs and line breaks stay. */
export function terminalSafe(text: string): string {
  return text.replace(LINE_CONTROLS, escaped);
}

/** One line of a tab-separated table: each field with its controls, tabs and line breaks included, written as `\uXXXX`. */
export function tableRow(fields: ReadonlyArray<string | number | null | undefined>): string {
  return fields.map((field) => String(field ?? '').replace(FIELD_CONTROLS, escaped)).join('\t');
}
