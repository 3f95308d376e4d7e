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

  /** Installs into a project whose Claude config holds a user value, then SIGKILLs `sf skit disable` just before it renames its temp copy onto that config. */
  async function killedConfigWrite(): Promise<{ dir: string; temp: string; mine: string[] }> {
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
    // the user's own files that merely look alike, and a copy a live process is still writing
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const mine = [`.settings.json.${dead}.0123abcd.tmp`, '.settings.local.json.bak', `settings.local.json.${dead}.0123abcd.tmp`, `.settings.local.json.${process.pid}.0123abcd.tmp`];
    for (const n of mine) await writeFile(join(dir, n), 'mine');
    return { dir, temp: temps[0], mine };
  }

  it('finds the temp sibling a killed write left next to a config Forge edits, and --fix deletes only that', async () => {
    const { dir, temp, mine } = await killedConfigWrite();
    const look = await sb.sf(['skit', 'doctor', '--json']);
    const found = (JSON.parse(look.stdout) as { findings: { code: string; message: string; fixed?: boolean }[] }).findings.find((f) => f.code === 'SF_DRIFT_CONFIG_TEMP');
    assert.ok(found && !found.fixed && found.message.includes(temp) && !mine.some((n) => found.message.includes(n)), look.stdout);

    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    assert.equal(existsSync(join(dir, temp)), false, 'Forge\'s temp copy is gone');
    for (const n of mine) assert.ok(existsSync(join(dir, n)), `${n} stays`);
    const again = await sb.sf(['skit', 'doctor', '--json']);
    assert.ok(!(JSON.parse(again.stdout) as { findings: { code: string }[] }).findings.some((f) => f.code === 'SF_DRIFT_CONFIG_TEMP'), again.stdout);
  });

  it('the recovery before the next mutating command deletes it too, and only it', async () => {
    const { dir, temp, mine } = await killedConfigWrite();
    const next = await sb.sf(['skit', 'enable', 'acme/kit:lint']);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(existsSync(join(dir, temp)), false, 'Forge\'s temp copy is gone');
    for (const n of mine) assert.ok(existsSync(join(dir, n)), `${n} stays`);
  });
});
