/**
 * A message's files as a reply shows them. The addresses of uploaded files go through the
 * presentation's `fileAddress` (signed for a while under FILES_ACCESS=participants); without one
 * they are shown as stored. Addresses a client named (D6) are never Souk's to sign.
 *
 * The classic generation's message rows carry only `message`, so the 2.x apps, which show text
 * and make its links clickable, get each uploaded file's address on a line of its own after the
 * text. Addresses a client named stay out, as before.
 */
import type { Message, MessageAttachment } from '../../domain/model.js';

/** How a stored address of an uploaded file is shown; absent: as stored. */
export type FileAddress = ((url: string) => string) | undefined;

export function shownAttachments(list: MessageAttachment[] | null, fileAddress: FileAddress): MessageAttachment[] | null {
  if (list === null || fileAddress === undefined) return list;
  return list.map((file) =>
    'mimeType' in file
      ? { ...file, url: fileAddress(file.url), ...(file.thumbnail !== undefined && { thumbnail: fileAddress(file.thumbnail) }) }
      : file,
  );
}

export function classicMessageText(m: Pick<Message, 'text' | 'attachments'>, fileAddress?: FileAddress): string {
  const lines = (shownAttachments(m.attachments, fileAddress) ?? []).filter((file) => 'mimeType' in file).map((file) => file.url);
  if (lines.length === 0) return m.text;
  return m.text.trim() === '' ? lines.join('\n') : `${m.text}\n${lines.join('\n')}`;
}
