/**
 * A node:test reporter that writes one JSON object, the counts of a `node --test` run:
 * { passed, failed, skipped }. scripts/run-tests.mjs gives each run a file of its own and sums
 * them into the whole run's one summary line. Tests are counted, suites not, except a suite that
 * failed with none of its tests failed (an error in its body or a hook): that counts as one
 * failure, so that no failure goes uncounted. Skipped and todo tests count as skipped. `ms` is
 * each file's time: the sum of its top-level tests' durations (they run one after another).
 */
export default async function* testCounts(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, ms: {} };
  /** failuresAt[n]: failures counted so far among the finished tests at nesting n under the open parent. */
  const failuresAt = [];
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    const { nesting } = data;
    if (nesting === 0 && data.file) counts.ms[data.file] = (counts.ms[data.file] ?? 0) + (data.details?.duration_ms ?? 0);
    const below = failuresAt[nesting + 1] ?? 0; // children finish before their parent
    failuresAt[nesting + 1] = 0;
    const suite = data.details?.type === 'suite';
    let own = 0;
    if (type === 'test:fail') own = suite && below > 0 ? 0 : 1;
    else if (!suite) {
      if (data.skip !== undefined || data.todo !== undefined) counts.skipped++;
      else counts.passed++;
    }
    counts.failed += own;
    failuresAt[nesting] = (failuresAt[nesting] ?? 0) + below + own;
  }
  yield `${JSON.stringify(counts)}\n`;
}
