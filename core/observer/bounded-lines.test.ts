import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { boundedLines, firstLine, type LineLimits } from './bounded-lines.js';

const all = async (file: string, limits: LineLimits) => {
  const out: string[] = [];
  for await (const l of boundedLines(file, limits)) out.push(l);
  return out;
};

describe('bounded first-lines reader', () => {
  it('yields complete lines across chunk boundaries, skips an oversized line, stops at its limits', async () => {
    const tmp = await tempDir();
    try {
      const f = join(tmp.path, 'a.jsonl');
      const long = 'x'.repeat(200_000);
      await writeFile(f, `one\n${long}\nthree ü\n${'y'.repeat(70_000)}\npartial`);
      const wide = { maxLines: 10, maxLineBytes: 1_000_000, maxBytes: 10_000_000 };
      assert.deepEqual((await all(f, wide)).map((l) => l.length), [3, 200_000, 7, 70_000], 'the last line has no newline yet: not yielded');
      assert.deepEqual(await all(f, { ...wide, maxLineBytes: 100_000 }), ['one', 'three ü', 'y'.repeat(70_000)], 'the 200 kB line is skipped');
      assert.deepEqual(await all(f, { ...wide, maxLines: 2, maxLineBytes: 100_000 }), ['one'], 'a skipped line still counts as a line');
      assert.deepEqual(await all(f, { ...wide, maxBytes: 100_000 }), ['one'], 'no line past the byte budget');
      assert.equal(await firstLine(f, 10), 'one');
      await writeFile(f, `${long}\nsecond\n`);
      assert.equal(await firstLine(f, 1000), undefined, 'an oversized first line is no first line');
    } finally {
      await tmp.cleanup();
    }
  });

  it('yields nothing for a missing file, a directory or a FIFO (and never blocks on the FIFO)', async () => {
    const tmp = await tempDir();
    try {
      const limits = { maxLines: 4, maxLineBytes: 1000, maxBytes: 4000 };
      assert.deepEqual(await all(join(tmp.path, 'absent.jsonl'), limits), []);
      assert.deepEqual(await all(join(tmp.path, 'absent', 'deeper.jsonl'), limits), []);
      await mkdir(join(tmp.path, 'dir.jsonl'));
      assert.deepEqual(await all(join(tmp.path, 'dir.jsonl'), limits), []);
      execFileSync('mkfifo', [join(tmp.path, 'fifo.jsonl')]);
      assert.deepEqual(await all(join(tmp.path, 'fifo.jsonl'), limits), []);
    } finally {
      await tmp.cleanup();
    }
  });
});
