/**
 * The settings an owner changes from the console (docs/console.md): the chat's bad words and what
 * is done with them, as `souk settings set bad_words|bad_words_action` does; every server takes
 * them within SETTINGS_REFRESH_MS. Each change audited, naming the setting and the list's length.
 */
import type { Actor, AuditLog } from '../audit.js';
import type { SettingsRepository } from '../ports.js';
import {
  BAD_WORDS_ACTION_SETTING,
  BAD_WORDS_ACTIONS,
  BAD_WORDS_SETTING,
  normalisedBadWords,
  type BadWordsAction,
} from '../safety/words.js';

export interface BadWords {
  words: string;
  action: BadWordsAction;
}

export const badWordsOf = (all: Record<string, string>): BadWords => ({
  words: all[BAD_WORDS_SETTING] ?? '',
  action: all[BAD_WORDS_ACTION_SETTING] === 'mask' ? 'mask' : 'reject',
});

export async function changeBadWords(
  deps: { settings: SettingsRepository; audit: AuditLog; now(): number },
  change: { actor: Actor; reason: string },
  wordsGiven: string,
  actionGiven: string,
): Promise<{ ok: true; value: BadWords } | { ok: false; problem: string }> {
  if (!(BAD_WORDS_ACTIONS as readonly string[]).includes(actionGiven))
    return { ok: false, problem: `action must be ${BAD_WORDS_ACTIONS.join(' or ')}` };
  const before = badWordsOf(await deps.settings.all());
  const value: BadWords = { words: normalisedBadWords(wordsGiven), action: actionGiven as BadWordsAction };
  for (const [key, now, was] of [
    [BAD_WORDS_SETTING, value.words, before.words],
    [BAD_WORDS_ACTION_SETTING, value.action, before.action],
  ] as const) {
    if (now === was) continue;
    await deps.settings.set(key, now);
    await deps.audit.record({
      at: deps.now(),
      actor: change.actor,
      action: 'settings.change',
      targetKind: 'settings',
      targetId: null,
      reason: change.reason,
      details: key === BAD_WORDS_SETTING ? { key, words: now === '' ? 0 : now.split(',').length } : { key, value: now },
    });
  }
  return { ok: true, value };
}
