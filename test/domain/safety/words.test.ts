/** The bad-words screen (src/domain/safety/words.ts): whole words after NFKC and lower case, refused or masked. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileWordScreen, parseBadWords, wordScreens } from '../../../src/domain/safety/words.js';

describe('bad words', () => {
  it('parses the list as the plugin keeps it: comma-separated, trimmed, folded, without blanks or repeats', () => {
    assert.deepEqual(parseBadWords(' Scam, ,SCAM,ｗｅｓｔｅｒｎ  union,,sc\u00adam'), ['scam', 'western union']);
    assert.deepEqual(parseBadWords(''), []);
  });

  it('refuses whole words whatever their case or width, naming the list’s words found, in the list’s order', () => {
    const screen = compileWordScreen('spam,scam,c++', 'reject');
    assert.deepEqual(screen.screen('A ＳＣＡＭ, and Spam.'), { ok: false, words: ['spam', 'scam'] });
    assert.deepEqual(screen.screen('I like C++!'), { ok: false, words: ['c++'] });
    for (const fine of ['scammer', 'antispam', 'scam_bot', 'scam2', 'scamé', 'xscam', '']) {
      assert.deepEqual(screen.screen(fine), { ok: true, text: fine }, fine);
    }
  });

  it('masks each match with one * per character written, the rest as it was', () => {
    const screen = compileWordScreen('scam,fine,western union', 'mask');
    assert.deepEqual(screen.screen('ＳＣＡＭ! Scam? scammer'), { ok: true, text: '****! ****? scammer' });
    // A ligature folds to two letters: the one character written is masked by one *.
    assert.deepEqual(screen.screen('ﬁne and fine'), { ok: true, text: '*** and ****' });
    assert.deepEqual(screen.screen('Western Union'), { ok: true, text: '*************' });
  });

  it('an empty list passes every text as it is; a screen is compiled again only when the setting changes', () => {
    const text = 'anything at all';
    assert.equal(compileWordScreen(' , ', 'reject').screen(text).ok, true);
    const screens = wordScreens();
    const a = screens('scam', 'reject');
    assert.equal(screens('scam', 'reject'), a);
    assert.notEqual(screens('scam', 'mask'), a);
  });
});
