import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { appendToFileDestination } from './delivery.js';
import { needsRotation } from './file-rotation.js';

const MiB = 1024 * 1024;
/** A line of `bytes` bytes with the newline, tagged so the test can tell where each line ended up. */
const line = (tag: number, bytes: number) => `{"n":${tag},"pad":"${'x'.repeat(bytes - 20 - String(tag).length)}"}`.padEnd(bytes - 1, ' ');
const tags = async (path: string) => ((await readFile(path, 'utf8')).match(/"n":\d+/g) ?? []).map((m) => Number(m.slice(4)));

describe('observer file destinations: size cap and rotation', () => {
  it('rotates before a line would pass the cap: PATH.1 newest, at most maxBackups kept, every line whole and in exactly one file', async () => {
    const tmp = await tempDir('sf-rotate-');
    try {
      const path = join(tmp.path, 'obs.jsonl');
      // 0.3 MiB lines, 1 MiB cap: three lines per file
      for (let n = 1; n <= 14; n++) await appendToFileDestination(path, line(n, Math.floor(0.3 * MiB)), { maxMegabytes: 1, maxBackups: 2 });
      assert.deepEqual((await readdir(tmp.path)).sort(), ['obs.jsonl', 'obs.jsonl.1', 'obs.jsonl.2']);
      assert.deepEqual(await tags(path), [13, 14]);
      assert.deepEqual(await tags(`${path}.1`), [10, 11, 12]);
      assert.deepEqual(await tags(`${path}.2`), [7, 8, 9], 'the oldest files (lines 1-6) were deleted');
      for (const f of [path, `${path}.1`, `${path}.2`]) {
        assert.ok((await stat(f)).size <= MiB, `${f} is within the cap`);
        assert.equal((await stat(f)).mode & 0o777, 0o600, `${f} stays private`);
      }
    } finally {
      await tmp.cleanup();
    }
  });

  it('maxBackups 0 keeps no rotated file; a line larger than the cap gets a file of its own, whole', async () => {
    const tmp = await tempDir('sf-rotate-');
    try {
      const path = join(tmp.path, 'obs.jsonl');
      await appendToFileDestination(path, line(1, 1000), { maxMegabytes: 1, maxBackups: 0 });
      await appendToFileDestination(path, line(2, 2 * MiB), { maxMegabytes: 1, maxBackups: 0 });
      assert.deepEqual(await tags(path), [2]);
      assert.equal((await stat(path)).size, 2 * MiB);
      assert.ok(!existsSync(`${path}.1`));
      await appendToFileDestination(path, line(3, 1000), { maxMegabytes: 1, maxBackups: 0 });
      assert.deepEqual(await tags(path), [3]);
    } finally {
      await tmp.cleanup();
    }
  });

  it('needsRotation: an empty file always takes the line; the cap is inclusive', () => {
    const r = { maxMegabytes: 1, maxBackups: 1 };
    assert.equal(needsRotation(0, 5 * MiB, r), false);
    assert.equal(needsRotation(MiB - 10, 10, r), false);
    assert.equal(needsRotation(MiB - 10, 11, r), true);
  });
});
