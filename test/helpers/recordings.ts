/**
 * The original service's recorded exchanges (the .txt files of test/fixtures/original/ and
 * original-2x/): each step's request (method, path, headers, body) and reply (status, body), every
 * byte as recorded.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export interface RecordedStep {
  id: string;
  title: string;
  method: string;
  /** The path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  status: number;
  replyBody: string;
}

function parseStep(section: string): RecordedStep {
  const lines = section.split('\n');
  const [, id = '', title = ''] = /^### \[(\d+)\] (.*)$/m.exec(section) ?? [];
  const requestLine = lines.find((l) => /^> [A-Z]+ \S+ HTTP\/1\.1$/.test(l)) ?? '';
  const [, method = '', path = ''] = /^> ([A-Z]+) (\S+)/.exec(requestLine) ?? [];
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const header = /^> ([A-Za-z-]+): (.*)$/.exec(line);
    if (header) headers[header[1]!.toLowerCase()] = header[2]!;
  }
  const at = (marker: RegExp) => lines.findIndex((l) => marker.test(l));
  const requestBody = at(/^> \[request body\]$/);
  const reply = at(/^\[response body: /);
  const statusLine = lines.find((l) => /^< HTTP\/1\.1 \d{3}/.test(l)) ?? '';
  return {
    id,
    title,
    method,
    path,
    headers,
    body: requestBody >= 0 ? lines[requestBody + 1] : undefined,
    status: Number(/^< HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]),
    replyBody: reply >= 0 ? (lines[reply + 1] ?? '') : '',
  };
}

/** Every step of a recording, by its number ("004"). */
export function recordedSteps(file: string): Map<string, RecordedStep> {
  const text = readFileSync(`${FIXTURES}${file}`, 'utf8');
  const steps = text.split(/^=+\n/m).filter((s) => s.startsWith('### ['));
  return new Map(steps.map((s) => [parseStep(s).id, parseStep(s)]));
}

/** The shape of a JSON value: keys in order and the type of every value, not the values themselves. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') return Object.entries(value).map(([k, v]) => [k, shapeOf(v)]);
  return value === null ? 'null' : typeof value;
}
