/**
 * Where a Souk process spent its time: the functions with the most self time in a V8
 * .cpuprofile (what `npm run bench -- --profile` writes into bench/profiles/).
 *
 *   npx tsx bench/profile-summary.ts bench/profiles/FILE.cpuprofile [TOP]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTimeEntry {
  function: string;
  where: string;
  samples: number;
  /** Share of the samples in which the process was not idle. */
  pctBusy: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** node_modules/fastify/lib/x.js -> fastify/lib/x.js; the project's own files relative to its root. */
function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path || '(native)';
}

export function summarise(
  file: string,
  top = 15,
): { busySamples: number; idleSamples: number; intervalMs: number; entries: SelfTimeEntry[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const totals = new Map<string, { fn: string; where: string; samples: number }>();
  let idle = 0;
  let all = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    all += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += hits;
      continue;
    }
    const fn = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${fn}@${where}`;
    const entry = totals.get(key) ?? { fn, where, samples: 0 };
    entry.samples += hits;
    totals.set(key, entry);
  }
  const busy = all - idle;
  const entries = [...totals.values()]
    .sort((a, b) => b.samples - a.samples)
    .slice(0, top)
    .map((e) => ({ function: e.fn, where: e.where, samples: e.samples, pctBusy: busy ? (100 * e.samples) / busy : 0 }));
  const intervalMs = all ? (profile.endTime - profile.startTime) / 1000 / all : 0;
  return { busySamples: busy, idleSamples: idle, intervalMs, entries };
}

export function formatSummary(title: string, s: ReturnType<typeof summarise>): string {
  const busyPct = s.busySamples + s.idleSamples ? (100 * s.busySamples) / (s.busySamples + s.idleSamples) : 0;
  const lines = [`${title}: ${s.busySamples} busy samples (${busyPct.toFixed(0)} % of the profile), self time:`];
  s.entries.forEach((e, i) => {
    lines.push(`  ${String(i + 1).padStart(2)}. ${e.pctBusy.toFixed(1).padStart(5)} %  ${e.function}  ${e.where}`);
  });
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/profile-summary.ts FILE.cpuprofile [TOP]');
    process.exit(2);
  }
  console.log(formatSummary(file, summarise(file, top ? Number(top) : 15)));
}
