import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';
import { kitTree } from '../../../test-support/skit-install.js';
import { writeTree } from '../../../test-support/index.js';

/**
 * Commands that edit the same files at once (reported by a concurrency audit): every edit each of
 * them reports must be in the files and the records afterwards.
 */
describe('sf observe and sf skit at the same time', function () {
  this.timeout(120_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (tmp = await tempDir('sf-concurrent-')));
  afterEach(() => tmp.cleanup());

  const sandbox = async (name: string) => {
    const home = join(tmp.path, name);
    await mkdir(join(home, '.claude'), { recursive: true });
    await mkdir(join(home, '.codex'), { recursive: true });
    const env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: '/usr/bin:/bin' };
    return { home, env, sf: (args: string[]) => runSf(args, { env, cwd: home }) };
  };

  it('twenty destination add at once keep all twenty destinations', async () => {
    const s = await sandbox('dest');
    const names = Array.from({ length: 20 }, (_, i) => `d${i}`);
    const results = await Promise.all(names.map((n) => s.sf(['observe', 'destination', 'add', n, `file:${join(s.home, `${n}.jsonl`)}`])));
    assert.deepEqual(results.map((r) => r.code), names.map(() => 0), results.map((r) => r.stderr).join(''));
    const config = JSON.parse(readFileSync(join(s.home, '.sf', 'config.json'), 'utf8'));
    assert.deepEqual(config.observe.destinations.map((d: { name: string }) => d.name).sort(), [...names].sort());
  });

  it('two observe installs for different hosts both end up in the install record (uninstall then removes both)', async () => {
    for (let round = 0; round < 4; round++) {
      const s = await sandbox(`r${round}`);
      const [a, b] = await Promise.all([
        s.sf(['observe', 'install', '--yes', '--agents', 'claude-code', '--no-service']),
        s.sf(['observe', 'install', '--yes', '--agents', 'codex', '--no-service']),
      ]);
      assert.deepEqual([a.code, b.code], [0, 0], a.stderr + b.stderr);
      const record = JSON.parse(readFileSync(join(s.home, '.sf', 'observe', 'install.json'), 'utf8'));
      assert.deepEqual(Object.keys(record.hosts).sort(), ['claude-code', 'codex'], `round ${round}: ${a.stdout}${a.stderr}${b.stdout}${b.stderr}`);
      assert.equal((await s.sf(['observe', 'uninstall', '--yes'])).code, 0);
      const codex = join(s.home, '.codex', 'config.toml');
      assert.ok(!existsSync(codex) || !/\[otel\]/.test(readFileSync(codex, 'utf8')), 'Forge\'s [otel] table is gone');
    }
  });

  it('observe install and skit disable editing the same settings.json and config.toml lose nothing', async () => {
    for (let round = 0; round < 4; round++) {
      const s = await sandbox(`d${round}`);
      const kit = join(s.home, 'kit');
      await writeTree(kit, kitTree());
      assert.equal((await s.sf(['add', 'skit', kit, '--agent', 'claude-code,codex', '--scope', 'user', '--yes'])).code, 0);
      const [observe, disable] = await Promise.all([
        s.sf(['observe', 'install', '--yes', '--agents', 'claude-code,codex', '--no-service']),
        s.sf(['skit', 'disable', 'acme/kit:lint', '--scope', 'user']),
      ]);
      assert.deepEqual([observe.code, disable.code], [0, 0], observe.stderr + disable.stderr);
      const settings = readFileSync(join(s.home, '.claude', 'settings.json'), 'utf8');
      const config = readFileSync(join(s.home, '.codex', 'config.toml'), 'utf8');
      assert.match(settings, /OTEL_LOGS_EXPORTER/, `round ${round}: observe's env`);
      assert.match(settings, /"lint": "off"/, `round ${round}: the disabled skill`);
      assert.match(config, /^\[otel\]/m, `round ${round}: observe's table`);
      assert.match(config, /\[\[skills\.config\]\]/, `round ${round}: the disabled skill's block`);
    }
  });
});
