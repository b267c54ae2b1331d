/** What a message's uploaded files change in the chat's use cases (domain/chat/common.ts). */
import type { Attachment, MessageAttachment, MessageType, UploadedAttachment } from '../model.js';

export interface WithFiles {
  text: string;
  /** Addresses the client named (D6). */
  files: Attachment[];
  /** Files uploaded with the message, already stored (domain/files/upload.ts). */
  uploads?: UploadedAttachment[];
}

/** The message's attachments, the named ones first; null when it has none. */
export function attachmentsOf(input: WithFiles): MessageAttachment[] | null {
  const uploads = input.uploads ?? [];
  if (uploads.length === 0) return input.files.length > 0 ? input.files : null;
  return [...input.files, ...uploads];
}

/** Uploaded files make the message `attachment`, as the plugin stores it; named ones only when there is no text (D6). */
export function typeWithFiles(input: WithFiles): MessageType {
  if ((input.uploads?.length ?? 0) > 0) return 'attachment';
  return input.files.length > 0 && input.text.trim() === '' ? 'attachment' : 'text';
}

export const hasFiles = (input: WithFiles) => input.files.length > 0 || (input.uploads?.length ?? 0) > 0;

/**
 * A message without text, in a word (a push's body): "Photo" for an uploaded image, "Voice
 * message" for one audio file, the file's name for an uploaded document; undefined when it has no
 * uploaded file.
 */
export function uploadsInWords(attachments: MessageAttachment[] | null): string | undefined {
  const uploads = (attachments ?? []).filter((file): file is UploadedAttachment => 'mimeType' in file);
  if (uploads.length === 0) return undefined;
  if (uploads.every((file) => file.type === 'image')) return uploads.length === 1 ? 'Photo' : `${uploads.length} photos`;
  if (uploads.length === 1 && uploads[0]!.type === 'audio') return 'Voice message';
  const first = uploads.find((file) => file.type !== 'image')!;
  return uploads.length === 1 ? first.name : `${first.name} (+${uploads.length - 1})`;
}
