import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * A machine set up by a Forge that still installed the Claude Code Skill hook: `sf observe
 * update` and `sf observe install` take the hook entry and its script away (the user's own hooks
 * and Git AI's stay, a backup is written), and `sf observe uninstall` of such an install still
 * removes everything.
 */

const GIT_AI = { matcher: '*', hooks: [{ type: 'command', command: '/usr/bin/git-ai checkpoint claude --hook-input stdin' }] };
const MINE = { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] };
const USER = { model: 'opus', hooks: { PreToolUse: [GIT_AI, MINE], PostToolUse: [GIT_AI] } };
const SCRIPT = '#!/usr/bin/env bash\n# Forge (sf observe): registers this Claude Code session with the local observer before a Skill\nexit 0\n';

describe('sf observe on a machine with the old Claude Code Skill hook', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let home: string;
  let env: NodeJS.ProcessEnv;
  const sf = (args: string[]) => runSf(args, { env, cwd: home });
  const settingsFile = () => join(home, '.claude', 'settings.json');
  const recordFile = () => join(home, '.sf', 'observe', 'install.json');
  const script = () => join(home, '.sf', 'observe', 'hooks', 'claude-code-skill.sh');
  const settings = () => JSON.parse(readFileSync(settingsFile(), 'utf8'));
  const install = ['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code', '--port', '14777', '--destination', 'file:obs.jsonl'];

  /** Turns the current install into what the old Forge left: the Skill block in settings.json, the script, both in the record. */
  async function makeLegacy(): Promise<void> {
    const item = { matcher: 'Skill', hooks: [{ type: 'command', command: script(), timeout: 5 }] };
    const doc = settings();
    doc.hooks.PreToolUse.push(item);
    await writeFile(settingsFile(), JSON.stringify(doc, null, 2));
    await mkdir(join(home, '.sf', 'observe', 'hooks'), { recursive: true });
    await writeFile(script(), SCRIPT, { mode: 0o755 });
    const record = JSON.parse(await readFile(recordFile(), 'utf8'));
    const host = record.hosts['claude-code'];
    host.jsonEdits[0].items = [{ path: ['hooks', 'PreToolUse'], value: item }];
    host.files = [{ path: script(), sha256: createHash('sha256').update(SCRIPT).digest('hex') }];
    await writeFile(recordFile(), JSON.stringify(record, null, 2));
  }

  async function expectMigrated(): Promise<void> {
    const now = settings();
    assert.deepEqual(now.hooks, USER.hooks, 'only the user\'s and Git AI\'s hooks, in their order');
    assert.equal(now.model, 'opus');
    assert.equal(now.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://127.0.0.1:14777');
    assert.ok(!existsSync(script()), 'the old hook script is gone');
    const host = JSON.parse(await readFile(recordFile(), 'utf8')).hosts['claude-code'];
    assert.deepEqual([host.files, host.jsonEdits[0].items], [[], []]);
    const doctor = JSON.parse((await sf(['observe', 'doctor', '--json'])).stdout).diagnostics;
    assert.ok(!doctor.some((d: { code: string }) => d.code === 'SF_OBSERVE_DRIFT'), JSON.stringify(doctor));
  }

  before(async () => {
    tmp = await tempDir('sf-observe-migrate-');
    home = join(tmp.path, 'home');
    env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: '/usr/bin:/bin' };
    await mkdir(join(home, '.claude'), { recursive: true });
    await writeFile(settingsFile(), JSON.stringify(USER, null, 2));
    const r = await sf(install);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => tmp.cleanup());

  it('doctor points at the leftover hook; update removes it, keeps every other hook and backs the file up', async () => {
    await makeLegacy();
    const withHook = readFileSync(settingsFile(), 'utf8');
    const doctor = JSON.parse((await sf(['observe', 'doctor', '--json'])).stdout).diagnostics;
    const drift = doctor.filter((d: { code: string }) => d.code === 'SF_OBSERVE_DRIFT');
    assert.equal(drift.length, 1, JSON.stringify(doctor));
    assert.match(drift[0].message, /Skill hook/);
    const backups = join(home, '.sf', 'backups', 'observe');
    const before = await readdir(backups);
    const u = await sf(['observe', 'update']);
    assert.equal(u.code, 0, u.stderr);
    await expectMigrated();
    const added = (await readdir(backups)).filter((b) => !before.includes(b));
    assert.equal(added.length, 1);
    assert.equal(await readFile(join(backups, added[0]), 'utf8'), withHook, 'the backup holds the settings with the old hook');
  });

  it('install over an old install removes it too', async () => {
    await makeLegacy();
    const r = await sf(install);
    assert.equal(r.code, 0, r.stderr);
    await expectMigrated();
  });

  it('uninstall of an old install removes the hook entry, the script and Forge\'s env', async () => {
    await makeLegacy();
    const r = await sf(['observe', 'uninstall', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(settings(), USER);
    assert.ok(!existsSync(script()));
    assert.ok(!existsSync(join(home, '.sf', 'observe', 'hooks')), 'the emptied hooks directory goes too');
  });
});
