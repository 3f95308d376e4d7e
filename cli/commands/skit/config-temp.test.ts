import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * A command killed in the middle of an atomic config write leaves its temp sibling (a full copy of
 * the config) in the user's config directory; `sf skit doctor --fix` deletes Forge's, and only
 * Forge's.
 */
describe('sf skit doctor and temp copies of host configs', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-config-temp-')));
  afterEach(() => sb.cleanup());

  it('finds the temp sibling a killed write left next to a config Forge edits, and --fix deletes only that', async () => {
    const dir = join(sb.project, '.claude');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'settings.local.json'), '{\n  "model": "x"\n}\n');
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    // a real SIGKILL just before the rename that would publish the config
    const preload = join(sb.root, 'kill.cjs');
    await writeFile(preload, `const fs = require('fs'); const r = fs.promises.rename;
fs.promises.rename = async (a, b) => { if (/settings\\.local\\.json$/.test(String(b))) process.kill(process.pid, 'SIGKILL'); return r(a, b); };`);
    const killed = await sb.sf(['skit', 'disable', 'acme/kit:lint'], { env: { NODE_OPTIONS: `--require=${preload}` } });
    assert.notEqual(killed.code, 0);
    const temps = (await readdir(dir)).filter((n) => /^\.settings\.local\.json\.\d+\.[0-9a-f]{8}\.tmp$/.test(n));
    assert.equal(temps.length, 1, 'the killed write left its temp copy');
    // the user's own files that merely look alike
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const mine = [`.settings.json.${dead}.0123abcd.tmp`, '.settings.local.json.bak', `settings.local.json.${dead}.0123abcd.tmp`];
    for (const n of mine) await writeFile(join(dir, n), 'mine');

    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    const report = JSON.parse(fix.stdout) as { findings: { code: string; fixed?: boolean }[] };
    assert.ok(report.findings.some((f) => f.code === 'SF_DRIFT_CONFIG_TEMP' && f.fixed), fix.stdout);
    assert.equal(existsSync(join(dir, temps[0])), false, 'Forge\'s temp copy is gone');
    for (const n of mine) assert.ok(existsSync(join(dir, n)), `${n} stays`);
    const again = await sb.sf(['skit', 'doctor', '--json']);
    assert.ok(!(JSON.parse(again.stdout) as { findings: { code: string }[] }).findings.some((f) => f.code === 'SF_DRIFT_CONFIG_TEMP'), again.stdout);
  });
});
