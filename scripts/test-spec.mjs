/**
 * node:test's spec reporter without the summary it prints at the end of each `node --test` run
 * (tests, pass, fail, ...): scripts/run-tests.mjs prints one summary line for the whole run.
 */
import { Readable } from 'node:stream';
import { spec } from 'node:test/reporters';

const RUN_SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;

export default async function* specWithoutRunSummary(source) {
  const events = Readable.from(
    (async function* () {
      for await (const event of source) {
        if (event.type === 'test:diagnostic' && event.data.nesting === 0 && RUN_SUMMARY.test(event.data.message)) continue;
        yield event;
      }
    })(),
  );
  yield* events.compose(new spec());
}
