import assert from 'node:assert/strict';
import { appendFile, mkdir, readdir, writeFile } from 'node:fs/promises';
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
});
