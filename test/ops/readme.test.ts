/**
 * The README as a newcomer's map: every page of docs/ is linked from it, and the route table of
 * docs/architecture.md names every route the app serves, each with files and names that exist; no
 * link of the README or of docs/ points to a file or a heading that is not there. The app is built on an in-memory SQLite
 * database, as `npm run openapi` builds it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { HTTPMethods } from 'fastify';
import { apiBase, loadConfig } from '../../src/config.js';
import { createSouk } from '../../src/server.js';

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../..');
const README = join(ROOT, 'README.md');
const readme = readFileSync(README, 'utf8');
const architecture = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

interface Row {
  methods: string[];
  paths: string[];
  routeFile: string;
  /** `file` `name` pairs of the use case and presenter columns. */
  names: Array<[file: string, name: string]>;
}

const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The rows of the architecture's route table; a path without a leading `/` is under `{api_base}`. */
function routeTable(base: string): Row[] {
  const start = architecture.indexOf('| Method | Path | Route file |');
  assert.ok(start >= 0, 'docs/architecture.md has the route table');
  const lines = architecture.slice(start).split('\n');
  const rows = lines.slice(
    2,
    lines.findIndex((l, i) => i > 1 && !l.startsWith('|')),
  );
  return rows.map((line) => {
    const [method, path, routeFile, useCase, presenter] = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    // A note in parentheses after the paths ("with `METRICS_TOKEN`") names no path.
    const paths = codeSpans(path!.split(' (')[0]!).map((p) => (p.startsWith('/') ? p : `${base}/${p}`));
    const names = [useCase!, presenter!].flatMap((cell) =>
      [...cell.matchAll(/`([^`]+\.ts)` `(\w+)`/g)].map((m) => [m[1]!, m[2]!] as [string, string]),
    );
    return { methods: method!.split(/,\s*/), paths, routeFile: codeSpans(routeFile!)[0]!, names };
  });
}

/** Every method and path the app serves, from Fastify's route tree: a path is its branches' text (HEAD goes with GET). */
function servedRoutes(tree: string): string[] {
  const served: string[] = [];
  const parents: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S*)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    parents.length = depth;
    const path = parents.join('') + m[2]!;
    parents.push(m[2]!);
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) served.push(`${method} ${path}`);
  }
  return served;
}

/** A table path ending in `/*` stands for every path under it. */
function covers(rows: Row[], route: string): boolean {
  const [method, path] = route.split(' ') as [string, string];
  return rows.some(
    (r) => r.methods.includes(method) && r.paths.some((p) => p === path || (p.endsWith('/*') && path.startsWith(p.slice(0, -1)))),
  );
}

describe('the README', () => {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', METRICS_TOKEN: 'metrics-token-0123456789' });
  const rows = routeTable(apiBase(config));
  let served: string[] = [];
  let close = async () => {};

  before(async () => {
    const souk = await createSouk(config);
    close = () => souk.close();
    await souk.app.ready();
    served = servedRoutes(souk.app.printRoutes());
    // The tree was read right: the app finds every route read from it.
    for (const route of served) {
      const [method, url] = route.split(' ') as [HTTPMethods, string];
      assert.ok(souk.app.hasRoute({ method, url }), `the app serves ${route}`);
    }
  });
  after(() => close());

  it('names every route the app serves in its route table, and only those', () => {
    assert.ok(served.includes(`POST ${apiBase(config)}/my/favourites`), `the route tree was read: ${served.join(', ')}`);
    assert.deepEqual(
      served.filter((route) => !covers(rows, route)),
      [],
      'routes missing from the route table',
    );
    const stale = rows.flatMap((r) =>
      r.methods.flatMap((method) =>
        r.paths.filter((p) => !p.endsWith('/*') && !served.includes(`${method} ${p}`)).map((p) => `${method} ${p}`),
      ),
    );
    assert.deepEqual(stale, [], 'routes in the route table the app does not serve');
  });

  it("names files that exist, names they export, and each row's route file registers its route", () => {
    for (const row of rows) {
      const routeFile = join(ROOT, 'src', row.routeFile);
      assert.ok(existsSync(routeFile), `src/${row.routeFile} exists`);
      // A route under {api_base}, the server API's prefix or the console's registers its path after it.
      const prefix = [apiBase(config), config.serverApiPrefix, '/console'].find(
        (p) => row.paths[0] === p || row.paths[0]!.startsWith(`${p}/`),
      );
      const first = prefix ? row.paths[0]!.slice(prefix.length) || '/' : row.paths[0]!;
      const source = readFileSync(routeFile, 'utf8');
      assert.ok(source.includes(`${first}'`) || source.includes(`${first}\``), `src/${row.routeFile} registers ${first}`);
      for (const [file, name] of row.names) {
        const path = join(ROOT, 'src', file);
        assert.ok(existsSync(path), `src/${file} exists`);
        const exported = new RegExp(`export (?:async )?(?:function|const|class|interface|type) ${name}\\b`);
        assert.match(readFileSync(path, 'utf8'), exported, `src/${file} exports ${name}`);
      }
    }
  });

  it('stays under 200 lines: a feature gets a page in docs/ and a line here', () => {
    const lines = readme.trimEnd().split('\n').length;
    assert.ok(lines < 200, `README.md has ${lines} lines`);
  });

  it('links every page of docs/', () => {
    // The pages in the repository (git ls-files): a test's screenshots under docs/ are not pages, nor the images a page shows.
    const pages = execFileSync('git', ['ls-files', 'docs'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((path) => path !== '' && !path.endsWith('.png'));
    const unlinked = pages.map((path) => path.slice('docs/'.length)).filter((page) => !readme.includes(`](docs/${page})`));
    assert.deepEqual(unlinked, [], 'docs/ pages the README does not link');
  });

  it('and the pages of docs/ link only to files and headings that exist', () => {
    const pages = [
      README,
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(ROOT, 'docs', f)),
    ];
    const broken = pages.flatMap((page) => {
      const text = readFileSync(page, 'utf8');
      return [...text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => {
          const [file, anchor] = target.split('#') as [string, string | undefined];
          const path = file === '' ? page : resolve(dirname(page), file);
          if (!existsSync(path)) return true;
          return anchor !== undefined && path.endsWith('.md') && !headingAnchors(readFileSync(path, 'utf8')).has(anchor);
        })
        .map((target) => `${page.slice(ROOT.length + 1)}: ${target}`);
    });
    assert.deepEqual(broken, []);
  });
});

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (m)
      anchors.add(
        m[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, '')
          .replace(/ /g, '-'),
      );
  }
  return anchors;
}
