/** The classic generation's message rows and uploaded files (present/chat/attachments.ts, docs/files.md). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classicMessageText } from '../../src/present/chat/attachments.js';

const photo = { url: 'https://s.example/files/chat/ab/a.jpg', type: 'image', mimeType: 'image/jpeg', name: 'a.jpg', size: 1 } as const;
const named = { url: 'https://cdn.example/b.jpg', name: 'b.jpg' };

describe('classic message text', () => {
  it("puts each uploaded file's address after the text, on a line of its own; addresses a client named stay out", () => {
    assert.equal(classicMessageText({ text: 'hello', attachments: null }), 'hello');
    assert.equal(classicMessageText({ text: '', attachments: [photo] }), photo.url);
    assert.equal(classicMessageText({ text: 'look', attachments: [photo, photo] }), `look\n${photo.url}\n${photo.url}`);
    assert.equal(classicMessageText({ text: 'as before', attachments: [named] }), 'as before');
  });
});
