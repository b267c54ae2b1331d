/**
 * The settings an owner changes from the console (docs/console.md): the chat's bad words and what
 * is done with them, the abuse limits and the retention (domain/tunables.ts), as `souk settings
 * set` does; every server takes them within SETTINGS_REFRESH_MS. Each change audited, naming the
 * setting and the list's length or the value.
 */
import type { Actor, AuditLog } from '../audit.js';
import type { SettingsRepository } from '../ports.js';
import { checkedTunable, TUNABLE_NAMES, TUNABLES, tunableValue, type Tunable, type TunableName, type TunableValues } from '../tunables.js';
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

type SettingsDeps = { settings: SettingsRepository; audit: AuditLog; now(): number };

/** Stores one setting and its `settings.change` audit row; `details` says what changed without the words themselves. */
async function storeAudited(
  deps: SettingsDeps,
  change: { actor: Actor; reason: string },
  key: string,
  value: string,
  details: Record<string, number | string | boolean>,
): Promise<void> {
  await deps.settings.set(key, value);
  await deps.audit.record({
    at: deps.now(),
    actor: change.actor,
    action: 'settings.change',
    targetKind: 'settings',
    targetId: null,
    reason: change.reason,
    details,
  });
}

export async function changeBadWords(
  deps: SettingsDeps,
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
    await storeAudited(
      deps,
      change,
      key,
      now,
      key === BAD_WORDS_SETTING ? { key, words: now === '' ? 0 : now.split(',').length } : { key, value: now },
    );
  }
  return { ok: true, value };
}

export interface TunableRow {
  name: TunableName;
  tunable: Tunable;
  /** As stored ('' when the environment's holds). */
  stored: string;
  environment: number;
  inForce: number;
}

/** The tunables as the settings page shows them. */
export function tunableRows(stored: Record<string, string>, environment: TunableValues): TunableRow[] {
  return TUNABLE_NAMES.map((name) => ({
    name,
    tunable: TUNABLES[name],
    stored: stored[TUNABLES[name].key] ?? '',
    environment: environment[name],
    inForce: tunableValue(name, stored, environment),
  }));
}

/**
 * An owner changes the abuse limits and the retention (a form's fields, by key): every field is
 * checked before any is stored, the first bad one named; each one changed is stored and audited
 * (`settings.change`, its key and value, '' for back to the environment's).
 */
export async function changeTunables(
  deps: SettingsDeps,
  change: { actor: Actor; reason: string },
  given: (key: string) => string,
): Promise<{ ok: true; changed: string[] } | { ok: false; problem: string }> {
  const checked: Array<[key: string, stored: string]> = [];
  for (const name of TUNABLE_NAMES) {
    const result = checkedTunable(name, given(TUNABLES[name].key));
    if (!result.ok) return { ok: false, problem: result.problem };
    checked.push([TUNABLES[name].key, result.stored]);
  }
  const before = await deps.settings.all();
  const changed: string[] = [];
  for (const [key, value] of checked) {
    if ((before[key] ?? '') === value) continue;
    await storeAudited(deps, change, key, value, { key, value: value === '' ? 'environment' : value });
    changed.push(key);
  }
  return { ok: true, changed };
}
