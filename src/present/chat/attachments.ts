/**
 * Uploaded files where a reply has no place for them: the classic generation's message rows carry
 * only `message`, so the 2.x apps, which show text and make its links clickable, get each file's
 * address on a line of its own after the text. Addresses a client named (D6) stay out, as before.
 */
import type { Message } from '../../domain/model.js';

export function classicMessageText(m: Pick<Message, 'text' | 'attachments'>): string {
  const lines = (m.attachments ?? []).filter((file) => 'mimeType' in file).map((file) => file.url);
  if (lines.length === 0) return m.text;
  return m.text.trim() === '' ? lines.join('\n') : `${m.text}\n${lines.join('\n')}`;
}
