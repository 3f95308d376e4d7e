import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installSandbox, type InstallSandbox } from '../../test-support/skit-install.js';

/**
 * The private file of a lock attempt (`.<config>.sf-lock.<pid>.<random>`, core/fs/file-lock.ts)
 * that a dead process left next to a config Forge edits (a kill, or a full disk in versions that
 * did not remove it): doctor reports it, and `--fix` and the recovery of the next command delete
 * it, and nothing of the user's that merely looks alike.
 */
describe('leftover lock files next to host configs', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-lock-temp-')));
  afterEach(() => sb.cleanup());

  it('doctor names them and --fix deletes only those of dead processes', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    // Forge's entry in settings.local.json: the config is now one a record names
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint'])).code, 0);
    const dir = join(sb.project, '.claude');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const left = [`.settings.local.json.sf-lock.${dead}.4567cdef`, `.settings.local.json.sf-lock.takeover.${dead}.89abcdef`];
    const mine = [`.settings.local.json.sf-lock.${process.pid}.0123abcd`, `.settings.local.json.sf-lock.${dead}.0123abcd.bak`, `.other.json.sf-lock.${dead}.0123abcd`];
    for (const n of [...left, ...mine]) await writeFile(join(dir, n), `${dead}\n`);

    const look = await sb.sf(['skit', 'doctor', '--json']);
    const found = (JSON.parse(look.stdout) as { findings: { code: string; message: string }[] }).findings.find((f) => f.code === 'SF_DRIFT_CONFIG_TEMP');
    assert.ok(found && left.every((n) => found.message.includes(n)) && !mine.some((n) => found.message.includes(n)), look.stdout);

    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    for (const n of left) assert.equal(existsSync(join(dir, n)), false, `${n} is gone`);
    for (const n of mine) assert.ok(existsSync(join(dir, n)), `${n} stays`);
  });
});
