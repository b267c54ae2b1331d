/**
 * The repository stands on its own: a clone has nothing beside it, so no tracked file may name the
 * team's folder next to the checkout. The contract is in docs/, the original's recordings and dumps
 * under test/fixtures/, the floors under bench/ (docs/layout.md). Every tracked text file is read as it
 * is in the working tree, the recorded data included (none of it names that folder).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
// Spelled in two pieces, so that this file does not name it.
const OUTSIDE = `..${'/'}shared`;

/** `file:line` of each line naming OUTSIDE, in the tracked text files (a file with a NUL byte is binary). */
function namingOutside(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20 })
    .split('\0')
    .filter(Boolean);
  assert.ok(files.length > 0, 'git ls-files listed no file');
  return files.flatMap((file) => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(ROOT, file));
    } catch {
      // Deleted in the working tree and not yet committed: nothing to read.
      return [];
    }
    if (bytes.includes(0)) return [];
    return bytes
      .toString('utf8')
      .split('\n')
      .flatMap((line, i) => (line.includes(OUTSIDE) ? [`${file}:${i + 1}: ${line.trim().slice(0, 160)}`] : []));
  });
}

it('no tracked file names the folder beside the repository', () => {
  assert.deepEqual(namingOutside(), []);
});
