import assert from 'node:assert/strict';
import { runSf, tempDir } from '../../../test-support/index.js';

/** An $SF_HOME under /proc used to hang `sf` for good: Node's recursive mkdir retries forever there. */
describe('sf with $SF_HOME on a kernel filesystem', function () {
  this.timeout(30_000);
  it('every command refuses it at once (SF_E_UNSAFE_PATH, exit 5) instead of hanging', async () => {
    const tmp = await tempDir('sf-kernel-home-');
    try {
      const env = { HOME: tmp.path, SF_HOME: '/proc/sf-home-test', PATH: '/usr/bin:/bin' };
      for (const args of [['add', 'skit', tmp.path, '--agent', 'claude-code', '--yes'], ['skit', 'list'], ['observe', 'install', '--yes', '--agents', 'none', '--no-service']]) {
        const r = await runSf(args, { env, cwd: tmp.path });
        assert.equal(r.code, 5, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /SF_E_UNSAFE_PATH.*\/proc\/sf-home-test is on the kernel's proc filesystem/);
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
