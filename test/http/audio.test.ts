/**
 * Voice messages and audio (docs/files.md, "Voice messages and audio"): M4A, AAC, MP3, Ogg Opus
 * and WebM audio uploaded with a message, known by their bytes, stored as sent with their
 * `duration`; one longer than FILES_AUDIO_MAX_S 413, a fake 415, each with its reason and nothing
 * stored; GET config lists the audio types. The files are tiny tones (test/fixtures/audio/README.md).
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LISTINGS, SITE_URL, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const API = '/wp-json/rtcl/v1';
const FIXTURES = new URL('../fixtures/audio/', import.meta.url);
const { amina, youssef } = USERS;

async function storedCount(root: string): Promise<number> {
  const entries = await readdir(join(root, 'chat'), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).length;
}

// One server for the file; audio longer than a second is refused, so that the test files stay tiny.
const dir = await mkdtemp(join(tmpdir(), 'souk-audio-'));
const t: TestSouk = await startTestSouk({ FILES_DIR: dir, FILES_SWEEP_INTERVAL_S: '0', FILES_AUDIO_MAX_S: '1' });
const base = await t.listen();
const started = await t.start(amina, { listing_id: LISTINGS.bike, text: 'Hello' });
const conId: number = started.json().con_id;

async function sendFile(name: string, bytes: Uint8Array, type: string) {
  const form = new FormData();
  form.append('con_id', String(conId));
  form.append('text', '');
  form.append('files[]', new Blob([bytes], { type }), name);
  const res = await fetch(`${base}${API}/my/chat/message`, { method: 'POST', headers: t.auth(amina), body: form });
  return { status: res.status, json: (await res.json()) as any };
}

describe('voice messages and audio', () => {
  it('takes M4A, AAC, MP3, Ogg Opus and WebM audio by their bytes, stored as sent, with their duration', async () => {
    const cases = [
      { file: 'voice.m4a', declared: 'audio/mp4', mimeType: 'audio/mp4', ext: 'm4a', duration: 0.7 },
      { file: 'voice.aac', declared: 'audio/aac', mimeType: 'audio/aac', ext: 'aac', duration: 0.6 },
      { file: 'voice.mp3', declared: 'audio/mpeg', mimeType: 'audio/mpeg', ext: 'mp3', duration: 0.7 },
      // An app that declares nothing: the bytes say what it is.
      { file: 'voice.opus', declared: 'application/octet-stream', mimeType: 'audio/ogg', ext: 'ogg', duration: 0.6 },
      { file: 'voice.webm', declared: 'audio/webm', mimeType: 'audio/webm', ext: 'webm', duration: 0.6 },
    ];
    for (const c of cases) {
      const bytes = await readFile(new URL(c.file, FIXTURES));
      const res = await sendFile(c.file, bytes, c.declared);
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.equal(res.json.type, 'attachment');
      const [file] = res.json.attachments;
      assert.deepEqual(Object.keys(file), ['url', 'type', 'mimeType', 'name', 'size', 'duration'], c.file);
      assert.deepEqual(
        { type: file.type, mimeType: file.mimeType, name: file.name, size: file.size, duration: file.duration },
        { type: 'audio', mimeType: c.mimeType, name: c.file, size: bytes.length, duration: c.duration },
      );
      assert.match(file.url, new RegExp(`^${SITE_URL}/files/chat/[0-9a-f]{2}/[0-9a-f]{64}\\.${c.ext}$`));
      // Served as stored: the same bytes, with its type.
      const served = await fetch(file.url.replace(SITE_URL, base));
      assert.equal(served.status, 200, file.url);
      assert.equal(served.headers.get('content-type'), c.mimeType);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
    }
    // The other side reads them with their durations.
    const read = await t.app.inject({ method: 'GET', url: `${API}/my/chat/conversation?con_id=${conId}`, headers: t.auth(youssef) });
    const durations = read
      .json()
      .messages.filter((m: any) => m.attachments !== null)
      .map((m: any) => JSON.parse(m.attachments)[0].duration);
    assert.deepEqual(durations.sort(), [0.6, 0.6, 0.6, 0.7, 0.7]);

    // A voice message taken back takes its file with it: the stored key is known as Souk's.
    const last = read.json().messages[0];
    const before = await storedCount(dir);
    const removed = await fetch(`${base}${API}/my/chat/message?con_id=${conId}&message_id=${last.message_id}`, {
      method: 'DELETE',
      headers: t.auth(amina),
    });
    assert.equal(removed.status, 200);
    assert.equal(await storedCount(dir), before - 1);
  });

  it('refuses audio longer than FILES_AUDIO_MAX_S (413) and a fake (415), with the reason, storing nothing', async () => {
    const before = await storedCount(dir);
    let res = await sendFile('long.mp3', await readFile(new URL('long.mp3', FIXTURES)), 'audio/mpeg');
    assert.deepEqual(res, {
      status: 413,
      json: {
        status: 'error',
        error: 'PAYLOAD_TOO_LARGE',
        code: '413',
        error_message: 'File "long.mp3" refused: it lasts 1.6 s, longer than the 1 s accepted.',
      },
    });
    // Text dressed as a voice note.
    res = await sendFile('voice.m4a', Buffer.from('this is not a voice message, only text pretending\n'.repeat(20)), 'audio/mp4');
    assert.deepEqual(res, {
      status: 415,
      json: {
        status: 'error',
        error: 'UNSUPPORTED_MEDIA_TYPE',
        code: '415',
        error_message: 'File "voice.m4a" refused: its content is not audio Souk accepts.',
      },
    });
    // MP3 frames' start with nothing playable after it, named as what it claims.
    const broken = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(600)]);
    res = await sendFile('note.mp3', broken, 'audio/mpeg');
    assert.equal(res.status, 415, JSON.stringify(res.json));
    assert.match(res.json.error_message, /^File "note\.mp3" refused: /);
    assert.equal(await storedCount(dir), before);
  });

  it('lists the audio types in GET config', async () => {
    const res = await fetch(`${base}${API}/config`, { headers: { 'x-api-key': t.apiKey } });
    const { attachment } = ((await res.json()) as any).chat;
    for (const type of ['audio/mp4', 'audio/aac', 'audio/mpeg', 'audio/ogg', 'audio/webm'])
      assert.ok(attachment.file_types.includes(type), type);
  });
});
