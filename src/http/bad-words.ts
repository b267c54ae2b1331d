/** A message's text through the `bad_words` setting: refused 400 as the plugin refuses it, or masked (domain/safety/words.ts). */
import type { WordScreen } from '../domain/safety/words.js';
import { inappropriateWords } from './errors.js';

export function screenedText(screen: WordScreen, text: string): string {
  const screened = screen.screen(text);
  if (!screened.ok) throw inappropriateWords(screened.words);
  return screened.text;
}
