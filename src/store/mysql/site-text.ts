/**
 * Text as the plugin stores it on the site's tables: the site prints stored text as HTML, so tags
 * are stripped as WordPress's wp_strip_all_tags strips them (script and style elements with their
 * content, then PHP's strip_tags, which `striptags` follows: nested `<`, quoted `>`, an unclosed
 * tag to the end, comments; NUL dropped), repeated until nothing changes, so no pass can leave a
 * tag that the one before it assembled. Invariant: the result holds no `<` that opens markup (only
 * a `<` followed by whitespace, which HTML reads as text). Text without `<` is kept byte for byte.
 */
import striptags from 'striptags';
import type { Attachment } from '../../domain/model.js';

const OPENING = /<(script|style)/gi;
const CLOSING = { script: /<\/script>/gi, style: /<\/style>/gi };

/**
 * `text` without its script and style elements, as wp_strip_all_tags's
 * `<(script|style)[^>]*?>.*?</\1>` (case-insensitive) removes them, in one pass over the text: that
 * pattern as a regular expression costs time in the square of the text's length when openings
 * are not closed. Once a name has no closing after some point, no later opening of it has one.
 */
function withoutScriptsAndStyles(text: string): string {
  let kept = '';
  let from = 0;
  const unclosed = new Set<string>();
  OPENING.lastIndex = 0;
  for (let opening = OPENING.exec(text); opening; opening = OPENING.exec(text)) {
    const name = opening[1]!.toLowerCase() as keyof typeof CLOSING;
    if (unclosed.has(name)) continue;
    const openEnd = text.indexOf('>', OPENING.lastIndex);
    if (openEnd < 0) break;
    const closing = CLOSING[name];
    closing.lastIndex = openEnd + 1;
    const closed = closing.exec(text);
    if (!closed) {
      unclosed.add(name);
      continue;
    }
    kept += text.slice(from, opening.index);
    from = closing.lastIndex;
    OPENING.lastIndex = from;
  }
  return kept + text.slice(from);
}

function stripOnce(text: string): string {
  return striptags(withoutScriptsAndStyles(text)).replaceAll('\u0000', '');
}

export function siteText(text: string): string {
  if (!text.includes('<') && !text.includes('\u0000')) return text;
  let before = text;
  for (;;) {
    const after = stripOnce(before);
    if (after === before) return after;
    before = after;
  }
}

/** Every text field of each attachment, as siteText; numbers as they are. */
export function siteAttachments(files: Attachment[]): Attachment[] {
  return files.map((file) => {
    const stored: Attachment = { ...file, url: siteText(file.url) };
    if (file.name !== undefined) stored.name = siteText(file.name);
    if (file.mime_type !== undefined) stored.mime_type = siteText(file.mime_type);
    return stored;
  });
}
