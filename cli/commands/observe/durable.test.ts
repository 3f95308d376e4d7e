import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin, tempDir } from '../../../test-support/index.js';
import { namesNotMadeDurable, traceProcess } from '../../../test-support/syscalls.js';

/**
 * `sf observe install` and `uninstall` edit the hosts' configs, write and delete the OpenCode
 * plugin and the install record: every name they create or delete must have its directory
 * fsynced before the command ends, or a power cut could bring back a removed plugin or lose a
 * backup. Read from the real system calls (strace).
 */
describe('sf observe install and uninstall leave durable names', function () {
  this.timeout(60_000);
  it('creates configs, plugin, backups and record durably, and deletes them durably', async () => {
    const tmp = await tempDir('sf-observe-durable-');
    try {
      const home = join(tmp.path, 'home');
      await mkdir(join(home, '.claude'), { recursive: true });
      await writeFile(join(home, '.claude', 'settings.json'), '{\n  "model": "opus"\n}\n');
      const env = { ...process.env, HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: '/usr/bin:/bin' };
      const traced = (...args: string[]) => traceProcess(process.execPath, [sfBin, ...args], { cwd: home, env });
      // temp files, and the short edit locks (beside config files, and observe/.lock)
      const scratch = (p: string) => p.endsWith('.tmp') || /(\.sf-lock|\/observe\/\.lock)(\.\d+\.[0-9a-f]+)?$/.test(p);
      const install = await traced('observe', 'install', '--yes', '--no-service', '--agents', 'claude-code,codex,opencode', '--port', '14998', '--destination', 'file:obs.jsonl');
      assert.deepEqual(namesNotMadeDurable(install, scratch), []);
      const plugin = join(home, '.config', 'opencode', 'plugins', 'forge-observe.js');
      assert.ok(existsSync(plugin));
      const uninstall = await traced('observe', 'uninstall', '--yes');
      assert.deepEqual(namesNotMadeDurable(uninstall, scratch), []);
      assert.ok(!existsSync(plugin), 'the plugin was removed');
      assert.ok(uninstall.some((c) => c.call.startsWith('unlink') && c.args.includes(plugin)), 'and its deletion was traced');
    } finally {
      await tmp.cleanup();
    }
  });
});
