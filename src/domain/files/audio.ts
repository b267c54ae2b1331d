/**
 * Voice messages and other audio (docs/files.md, "Voice messages and audio"): M4A (AAC in MP4),
 * AAC (ADTS), MP3, Ogg (Opus or Vorbis) and WebM audio, known by their bytes (file-type), their
 * duration read from the container (music-metadata) and capped. Stored as sent: no transcoding.
 */

/** The audio types Souk stores, with the extension their stored file is named by. */
export const AUDIO_EXTENSIONS: Readonly<Record<string, string>> = {
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
};

/**
 * What file-type answers for each: an MP4 or WebM container is `video/` to it whatever it holds
 * (an Android recorder's M4A is `mp42`), so those are audio when the container has no picture.
 */
const SNIFFED_AUDIO: Readonly<Record<string, string>> = {
  'audio/x-m4a': 'audio/mp4',
  'audio/mp4': 'audio/mp4',
  'video/mp4': 'audio/mp4',
  'audio/aac': 'audio/aac',
  'audio/mpeg': 'audio/mpeg',
  'audio/ogg': 'audio/ogg',
  'audio/ogg; codecs=opus': 'audio/ogg',
  'audio/opus': 'audio/ogg',
  'video/webm': 'audio/webm',
  'audio/webm': 'audio/webm',
};

/** The names and declared types of a file that says it is audio. */
const AUDIO_NAME = /\.(m4a|aac|mp3|ogg|oga|opus|weba)$/i;

/** Whether the client says the file is audio (its declared type or its name): bytes that are not are a fake. */
export const claimsAudio = (name: string, declaredType: string): boolean =>
  declaredType.toLowerCase().startsWith('audio/') || AUDIO_NAME.test(name);

export type AudioCheck =
  | { ok: true; mimeType: string; duration: number }
  /** `tooLong`: longer than the cap (413); otherwise not audio Souk can read (415). */
  | { ok: false; reason: string; tooLong: boolean };

/** The audio type bytes file-type read as `sniffed` may be, if any. */
export const audioTypeOf = (sniffed: string | undefined): string | undefined =>
  sniffed === undefined ? undefined : SNIFFED_AUDIO[sniffed];

/**
 * The duration of a file whose bytes may be `mimeType` audio (audioTypeOf), or why it is refused;
 * undefined when the container holds a picture (a video, not audio).
 */
export async function checkAudio(path: string, mimeType: string, maxSeconds: number): Promise<AudioCheck | undefined> {
  // Loaded with the first audio file, not with every process that could receive one.
  const { parseFile } = await import('music-metadata');
  let format;
  try {
    ({ format } = await parseFile(path, { duration: true, skipCovers: true, skipPostHeaders: true }));
  } catch {
    return { ok: false, reason: 'its audio cannot be read', tooLong: false };
  }
  if (format.hasVideo) return undefined;
  const duration = format.duration;
  if (format.hasAudio === false || duration === undefined || !Number.isFinite(duration) || duration <= 0)
    return { ok: false, reason: 'its audio cannot be read', tooLong: false };
  if (duration > maxSeconds)
    return { ok: false, reason: `it lasts ${Math.round(duration * 10) / 10} s, longer than the ${maxSeconds} s accepted`, tooLong: true };
  // Tenths of a second: what a player shows, and a short voice note is not 0.
  return { ok: true, mimeType, duration: Math.max(0.1, Math.round(duration * 10) / 10) };
}
