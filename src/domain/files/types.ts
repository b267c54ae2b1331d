import { AUDIO_EXTENSIONS } from './audio.js';

/**
 * The plugin's attachment types (Fns::getChatAttachmentConfig): JPEG, PNG, WebP, PDF, Word and
 * Excel, and Souk's audio (audio.ts), each with the extension its stored file is named by (a
 * key's extension gives the type it is served with).
 */
export const FILE_EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  ...AUDIO_EXTENSIONS,
};

/** The types uploads accept unless the operator says otherwise (FILES_TYPES): the plugin's, and audio. */
export const PLUGIN_FILE_TYPES: readonly string[] = Object.keys(FILE_EXTENSIONS);

const TYPE_OF_EXTENSION = new Map(Object.entries(FILE_EXTENSIONS).map(([type, ext]) => [ext, type]));

/** The MIME type a stored file is served with, by its extension; undefined for any other. */
export const typeOfExtension = (ext: string): string | undefined => TYPE_OF_EXTENSION.get(ext);
