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

const SCRIPT_OR_STYLE = /<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi;

function stripOnce(text: string): string {
  return striptags(text.replace(SCRIPT_OR_STYLE, '')).replaceAll('\u0000', '');
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
