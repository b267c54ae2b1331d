/**
 * The seed of the property tests (fast-check). Fixed by default, so a run - in CI or here -
 * generates the same cases as the last one and a failure is always reproducible:
 *   FC_SEED=N        replays seed N
 *   FC_SEED=random   draws a new seed (printed at the end of the file's run, to replay it)
 */
const FIXED_SEED = 20261123;

export function propertySeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FC_SEED;
  if (raw === undefined || raw === '') return FIXED_SEED;
  if (raw === 'random') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got "${raw}"`);
  return seed;
}
