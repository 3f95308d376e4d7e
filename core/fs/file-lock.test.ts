import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { withFileLock } from './file-lock.js';

describe('core/fs file lock (one read-modify-write at a time among sf processes)', () => {
  let dir: { path: string; cleanup(): Promise<void> };
  beforeEach(async () => (dir = await tempDir('sf-file-lock-')));
  afterEach(() => dir.cleanup());

  it('serializes concurrent holders in this process and removes the lock after', async () => {
    const lock = join(dir.path, '.f.sf-lock');
    let inside = 0;
    let most = 0;
    await Promise.all(Array.from({ length: 8 }, () => withFileLock(lock, async () => {
      most = Math.max(most, ++inside);
      await new Promise((r) => setTimeout(r, 5));
      inside--;
    }, { what: 'f' })));
    assert.equal(most, 1);
    assert.equal(existsSync(lock), false);
  });

  it('takes over a lock whose owner is gone, waits for a live one and then names it', async () => {
    const lock = join(dir.path, '.f.sf-lock');
    await writeFile(lock, '2147483646\n'); // no such process
    assert.equal(await withFileLock(lock, async () => 'ran', { what: 'f' }), 'ran');
    const sleeper = spawn('sleep', ['30']);
    try {
      await writeFile(lock, `${sleeper.pid}\n`);
      await assert.rejects(withFileLock(lock, async () => 'ran', { what: 'the file f', waitMs: 200 }), (e) => isSfError(e, 'SF_E_CONFLICT') && e.message.includes(`pid ${sleeper.pid}`) && e.message.includes('the file f'));
    } finally {
      sleeper.kill();
    }
  });

  it('is re-entrant within one process (an edit inside an edit of the same file)', async () => {
    const lock = join(dir.path, '.f.sf-lock');
    const out = await withFileLock(lock, () => withFileLock(lock, async () => 'nested', { what: 'f', waitMs: 100 }), { what: 'f' });
    assert.equal(out, 'nested');
  });
});
