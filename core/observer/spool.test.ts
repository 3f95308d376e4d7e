import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, mkdir, open, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { replaySpool, spoolBacklog } from './spool.js';

describe('observer spool replay', () => {
  it('replays spooled messages oldest file first, drops stale and broken lines, and empties the spool', async () => {
    const tmp = await tempDir();
    try {
      const dir = join(tmp.path, 'spool');
      await mkdir(dir);
      const now = Date.now() / 1000;
      await writeFile(join(dir, 'claude-code.jsonl'), [
        JSON.stringify({ at: now - 10, message: { type: 'register', n: 1 } }),
        'not json',
        JSON.stringify({ at: now - 13 * 3600, message: { type: 'register', n: 'stale' } }),
      ].join('\n') + '\n');
      await appendFile(join(dir, 'opencode.jsonl'), JSON.stringify({ at: now, message: { type: 'event', n: 2 } }) + '\n');
      await writeFile(join(dir, 'opencode.jsonl.replaying-99999'), JSON.stringify({ at: now, message: { type: 'event', n: 3 } }) + '\n');
      assert.deepEqual(await spoolBacklog(dir), { files: 3, lines: 5, bytes: (await spoolBacklog(dir)).bytes });
      const seen: unknown[] = [];
      const r = await replaySpool(dir, async (m) => void seen.push((m as { n: unknown }).n));
      assert.deepEqual(seen, [1, 2, 3]);
      assert.deepEqual(r, { replayed: 3, dropped: 2 });
      assert.deepEqual(await readdir(dir), []);
      assert.deepEqual(await replaySpool(join(tmp.path, 'absent'), async () => undefined), { replayed: 0, dropped: 0 });
    } finally {
      await tmp.cleanup();
    }
  });

  describe('a hook appending while the observer takes the file', () => {
    it('a line written through a descriptor opened before the rename, after the file was read, is replayed, not deleted', async () => {
      const tmp = await tempDir();
      try {
        const spool = join(tmp.path, 'opencode.jsonl');
        const line = (n: number) => JSON.stringify({ at: Date.now() / 1000, message: { type: 'event', n } }) + '\n';
        await writeFile(spool, line(1));
        // the hook's appendFileSync has opened the file; the observer renames and reads it before the write lands
        const hook = await open(spool, 'a');
        const seen: unknown[] = [];
        try {
          const r = await replaySpool(tmp.path, async (m) => {
            seen.push((m as { n: unknown }).n);
            if (seen.length === 1) await hook.write(line(2));
          });
          assert.deepEqual(r, { replayed: 2, dropped: 0 });
        } finally {
          await hook.close();
        }
        assert.deepEqual(seen, [1, 2]);
        assert.deepEqual(await readdir(tmp.path), []);
      } finally {
        await tmp.cleanup();
      }
    });

    it('loses no line of a real process appending as fast as it can while replays run', async function () {
      this.timeout(60_000);
      const tmp = await tempDir();
      try {
        const spool = join(tmp.path, 'opencode.jsonl');
        const lines = 20_000;
        // what the OpenCode plugin does for each event it cannot deliver
        const writer = spawn(process.execPath, ['-e', `const fs = require('fs');
for (let n = 0; n < ${lines}; n++) fs.appendFileSync(${JSON.stringify(spool)}, JSON.stringify({ at: Math.floor(Date.now() / 1000), message: { n } }) + '\\n');`], { stdio: 'inherit' });
        const exited = once(writer, 'exit');
        let running = true;
        void exited.then(() => (running = false));
        const seen = new Set<number>();
        const collect = async (m: unknown) => void seen.add((m as { n: number }).n);
        while (running) await replaySpool(tmp.path, collect);
        assert.equal((await exited)[0], 0);
        await replaySpool(tmp.path, collect);
        assert.equal(seen.size, lines, `${lines - seen.size} spooled lines were lost`);
      } finally {
        await tmp.cleanup();
      }
    });
  });
});
