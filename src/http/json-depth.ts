/**
 * How deeply a JSON text nests, read from the raw text in one pass without parsing it, so that a
 * body nested far deeper than any request needs is refused before JSON.parse spends time on it.
 */

/** The deepest nesting any request body needs is 3 (`{"files":[{...}]}`); this leaves room. */
export const JSON_MAX_DEPTH = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when some `[` or `{` outside a string opens a level deeper than `maxDepth`.
 * Only structure outside strings counts; an escaped quote (`\"`) does not end a string. The text
 * need not be valid JSON: invalid text is left for JSON.parse to refuse.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // The character after a backslash is escaped: it cannot end the string.
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
