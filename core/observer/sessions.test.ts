import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { initRepo } from '../../test-support/git.js';
import { SessionRegistry } from './sessions.js';

describe('session registry', () => {
  it('resolves at registration, labels a session seen from two directories as unresolved, prunes dead and silent sessions', async () => {
    const tmp = await tempDir();
    try {
      const a = join(tmp.path, 'a');
      const b = join(tmp.path, 'b');
      await mkdir(a);
      await mkdir(b);
      initRepo(a);
      initRepo(b);
      let now = 1000;
      const reg = new SessionRegistry(Buffer.alloc(32, 1), 10_000, () => now);
      await reg.register({ type: 'register', agent: 'claude-code', session_id: 's1', cwd: a, pid: process.pid, turn_ids: ['t1'] });
      const info = reg.info('claude-code', 's1')!;
      assert.equal(info.repositoryResolved, true);
      assert.match(info.fingerprints['forge.worktree.fingerprint']!, /^[0-9a-f]{64}$/);
      assert.equal(reg.info('codex', 's1'), undefined, 'sessions are per host');
      assert.equal(reg.heartbeat({ type: 'heartbeat', agent: 'claude-code', session_id: 's1', turn_ids: ['t2'] }), true);
      assert.deepEqual(reg.list()[0].turnIds, ['t1', 't2']);
      await reg.register({ type: 'register', agent: 'claude-code', session_id: 's1', cwd: b });
      assert.deepEqual(reg.info('claude-code', 's1')!.fingerprints, {});
      assert.equal(reg.info('claude-code', 's1')!.repositoryResolved, false);
      await reg.register({ type: 'register', agent: 'codex', session_id: 'dead', cwd: a, pid: 2 ** 22 + 12345 });
      await reg.register({ type: 'register', agent: 'opencode', session_id: 'quiet', cwd: a });
      now += 5000;
      assert.equal(reg.prune(), 1, 'the dead pid');
      now += 20_000;
      assert.equal(reg.prune(), 2, 'silent past the TTL');
      assert.equal(reg.heartbeat({ type: 'heartbeat', agent: 'opencode', session_id: 'quiet' }), false);
    } finally {
      await tmp.cleanup();
    }
  });
});
