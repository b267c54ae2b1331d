/**
 * The plugin's `bad_words` chat setting: a comma-separated list of words a message may not hold,
 * matched as whole words, without regard to case or width (Unicode NFKC, then lower case: `ＳＣＡＭ`
 * is `scam`), nor to what a reader cannot see: default-ignorable code points (zero-width spaces
 * and joiners, soft hyphens, variation selectors) are dropped and every run of white space (doubled
 * spaces, line breaks) is one space before matching. `reject` refuses the message, naming the
 * words; `mask` stores it with each match replaced by one `*` per character. A message's text and
 * its files' names are screened alike. A list is compiled once per change of the setting; with
 * none, a message costs nothing.
 */
import type { Attachment, UploadedAttachment } from '../model.js';

export type BadWordsAction = 'reject' | 'mask';

export const BAD_WORDS_ACTIONS: readonly BadWordsAction[] = ['reject', 'mask'];

export type Screened = { ok: true; text: string } | { ok: false; words: string[] };

export interface WordScreen {
  /** The text to store (masked, or as it came), or the list's words it holds. */
  screen(text: string): Screened;
}

const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;
const SPACES = /\s+/gu;

/** What is matched: NFKC, without what does not show, white space as one space, lower case. */
const fold = (text: string) => text.normalize('NFKC').replace(INVISIBLE, '').replace(SPACES, ' ').toLowerCase();

/** What may not touch a match on either side for it to be a whole word. */
const WORD_CHARACTER = '[\\p{L}\\p{N}\\p{M}_]';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** The list's words: trimmed, folded, without empties and repeats. */
export function parseBadWords(list: string): string[] {
  return [
    ...new Set(
      list
        .split(',')
        .map((w) => fold(w.trim()))
        .filter((w) => w !== ''),
    ),
  ];
}

const PASS: WordScreen = { screen: (text) => ({ ok: true, text }) };

export function compileWordScreen(list: string, action: BadWordsAction): WordScreen {
  const words = parseBadWords(list);
  if (words.length === 0) return PASS;
  // Longest first: of two words where one starts the other, the longer one is the match.
  const alternatives = [...words].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const source = `(?<!${WORD_CHARACTER})(?:${alternatives.join('|')})(?!${WORD_CHARACTER})`;
  const test = new RegExp(source, 'u');
  const all = new RegExp(source, 'gu');
  return {
    screen(text) {
      const folded = fold(text);
      if (!test.test(folded)) return { ok: true, text };
      if (action === 'reject') {
        const found = new Set(folded.match(all));
        return { ok: false, words: words.filter((w) => found.has(w)) };
      }
      return { ok: true, text: mask(text, all) };
    },
  };
}

/**
 * The text with every match replaced by one `*` per character of the original. The text is
 * folded one cluster at a time (a character and the marks that follow it), so that a match's
 * place in the folded text maps back to the original's characters, whatever folding did to lengths.
 */
function mask(text: string, pattern: RegExp): string {
  const clusters = text.match(/\P{M}\p{M}*|\p{M}+/gsu) ?? [];
  let folded = '';
  /** For each folded UTF-16 unit, the cluster it came from. */
  const origin: number[] = [];
  clusters.forEach((cluster, i) => {
    let f = fold(cluster);
    // A run of white space folds to one space, as fold() makes it of the whole text.
    if (f === ' ' && folded.endsWith(' ')) f = '';
    folded += f;
    for (let k = 0; k < f.length; k++) origin.push(i);
  });
  const masked = new Array<boolean>(clusters.length).fill(false);
  for (const m of folded.matchAll(pattern)) {
    const first = origin[m.index]!;
    const last = origin[m.index + m[0].length - 1]!;
    for (let i = first; i <= last; i++) masked[i] = true;
  }
  return clusters.map((cluster, i) => (masked[i] ? '*'.repeat([...cluster].length) : cluster)).join('');
}

/**
 * A message's files refused for their names: the list's words found. Thrown by the chat's use
 * cases (their text is screened where it arrives, http/bad-words.ts), answered as the text's words are.
 */
export class InappropriateWords extends Error {
  constructor(readonly words: string[]) {
    super(`inappropriate words: ${words.join(', ')}`);
  }
}

/**
 * The names of a message's files through the screen: named in JSON (`files[].name`) or uploaded
 * (the file's own name). Masked names replace them; a name with the list's words refuses the
 * message (InappropriateWords), as its text would.
 */
export function screenFileNames<T extends { files: Attachment[]; uploads?: UploadedAttachment[] }>(
  screen: WordScreen | undefined,
  message: T,
): T {
  if (!screen || screen === PASS) return message;
  const found: string[] = [];
  const named = <F extends { name?: string }>(file: F): F => {
    if (file.name === undefined) return file;
    const screened = screen.screen(file.name);
    if (!screened.ok) {
      found.push(...screened.words);
      return file;
    }
    return screened.text === file.name ? file : { ...file, name: screened.text };
  };
  const files = message.files.map(named);
  const uploads = message.uploads?.map(named);
  if (found.length > 0) throw new InappropriateWords([...new Set(found)]);
  return { ...message, files, ...(uploads && { uploads }) };
}

/** The screen of the settings in force, compiled again only when the list or the action changed. */
export function wordScreens(): (list: string, action: BadWordsAction) => WordScreen {
  let last: { list: string; action: BadWordsAction; screen: WordScreen } | undefined;
  return (list, action) => {
    if (last?.list !== list || last.action !== action) last = { list, action, screen: compileWordScreen(list, action) };
    return last.screen;
  };
}

/** The stored settings that hold the list and the action (`souk settings set`; on WordPress the list is the plugin's). */
/** The list as the plugin keeps it, comma-separated: blanks, repeats and what screens nothing dropped. */
export function normalisedBadWords(value: string): string {
  return [...new Set(value.split(',').map((w) => w.trim()))].filter((w) => w !== '' && parseBadWords(w).length > 0).join(',');
}

export const BAD_WORDS_SETTING = 'bad_words';
export const BAD_WORDS_ACTION_SETTING = 'bad_words_action';

/** The screen of the stored settings as they are now (`stored`: the settings last read). */
export function liveWordScreen(stored: () => Record<string, string>): () => WordScreen {
  const screens = wordScreens();
  return () => {
    const all = stored();
    return screens(all[BAD_WORDS_SETTING] ?? '', all[BAD_WORDS_ACTION_SETTING] === 'mask' ? 'mask' : 'reject');
  };
}
