/** Uploaded files in replies (present/chat/attachments.ts, docs/files.md): the classic generation's rows, signed addresses. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classicMessageText, shownAttachments } from '../../src/present/chat/attachments.js';

const photo = { url: 'https://s.example/files/chat/ab/a.jpg', type: 'image', mimeType: 'image/jpeg', name: 'a.jpg', size: 1 } as const;
const named = { url: 'https://cdn.example/b.jpg', name: 'b.jpg' };

describe('classic message text', () => {
  it("puts each uploaded file's address after the text, on a line of its own; addresses a client named stay out", () => {
    assert.equal(classicMessageText({ text: 'hello', attachments: null }), 'hello');
    assert.equal(classicMessageText({ text: '', attachments: [photo] }), photo.url);
    assert.equal(classicMessageText({ text: 'look', attachments: [photo, photo] }), `look\n${photo.url}\n${photo.url}`);
    assert.equal(classicMessageText({ text: 'as before', attachments: [named] }), 'as before');
  });

  it("shows the uploaded files through the presentation's fileAddress (FILES_ACCESS=participants), never a named one", () => {
    const signed = (url: string) => `${url}?signed`;
    assert.equal(classicMessageText({ text: 'look', attachments: [photo, named] }, signed), `look\n${photo.url}?signed`);
  });
});

describe('shown attachments', () => {
  it("signs an uploaded file's address and thumbnail, keeping the keys' order; leaves a named address and, without fileAddress, the list itself", () => {
    const withThumbnail = { ...photo, thumbnail: 'https://s.example/files/chat/ab/a-thumb.jpg', width: 2, height: 1 };
    const list = [withThumbnail, photo, named];
    const shown = shownAttachments(list, (url) => `${url}?signed`);
    assert.deepEqual(shown, [
      { ...withThumbnail, url: `${photo.url}?signed`, thumbnail: `${withThumbnail.thumbnail}?signed` },
      { ...photo, url: `${photo.url}?signed` },
      named,
    ]);
    assert.equal(JSON.stringify(Object.keys(shown![0]!)), JSON.stringify(Object.keys(withThumbnail)));
    assert.equal(shownAttachments(list, undefined), list);
    assert.equal(
      shownAttachments(null, (url) => url),
      null,
    );
  });
});
