import { strict as assert } from 'node:assert';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Library } from '../library/db.js';
import { sfPaths } from '../library/paths.js';
import type { IntentRecord } from '../library/types.js';
import { tempDir } from '../../test-support/index.js';
import { scratchLeftovers } from './recover.js';

describe('recovery among concurrent commands', () => {
  let tmp: { path: string; cleanup(): Promise<void> };
  beforeEach(async () => (tmp = await tempDir('sf-recover-race-')));
  afterEach(() => tmp.cleanup());

  it('exactly one command takes over an interrupted intent; the others find a live holder', async () => {
    const lib = (await Library.open(sfPaths({ SF_HOME: tmp.path }), { create: true }))!;
    try {
      const stale: IntentRecord = { schema: 1, id: 'interrupted', op: 'install', pid: 2147483646, startedAt: '2026-01-01T00:00:00.000Z', phase: 'applying' };
      lib.commit({ putIntent: stale });
      const first = lib.takeOver(stale, process.pid, new Date().toISOString());
      assert.equal(first?.pid, process.pid);
      assert.equal(first?.phase, 'applying', 'the plan and phase are kept');
      assert.equal(lib.takeOver(stale, 12345, new Date().toISOString()), undefined, 'a second taker, holding the same snapshot, gets nothing');
      assert.equal(lib.getIntent('interrupted')?.pid, process.pid);
      lib.commit({ deleteIntent: 'interrupted' });
      assert.equal(lib.takeOver(stale, 12345, new Date().toISOString()), undefined, 'nor after it was recovered');
    } finally {
      await lib.close();
    }
  });

  it('a running command\'s store staging is not reported as a leftover; a dead one\'s is', async () => {
    const paths = sfPaths({ SF_HOME: tmp.path });
    const live = join(paths.storeStaging, `0a1b2c.${process.pid}.deadbeef`);
    const dead = join(paths.storeStaging, '0a1b2c.2147483646.deadbeef');
    await mkdir(live, { recursive: true });
    await mkdir(dead, { recursive: true });
    assert.deepEqual(await scratchLeftovers(paths), [dead]);
  });
});
