import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { reconcileObserveJson } from '../config/observe-json.js';
import { writeManagedFile } from '../observe/managed-file.js';
import type { ObserveContext, ObserveHostRecord } from '../observe/types.js';
import { observeContext } from '../observe/registry.js';
import { claudeDesired, claudeObserveAdapter } from './observe.js';

/** A user's settings: their own Skill hook and Git AI's "*" hooks, before any Forge install. */
const USER = `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "*", "hooks": [{ "type": "command", "command": "/usr/local/bin/git-ai checkpoint claude --hook-input stdin" }] },
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo mine" }] }
    ],
    "PostToolUse": [
      { "matcher": "*", "hooks": [{ "type": "command", "command": "/usr/local/bin/git-ai checkpoint claude --hook-input stdin" }] }
    ]
  }
}
`;

/**
 * What Forge before transcript registration installed: the env block plus this PreToolUse entry
 * and its bash script, recorded in the host record (written here with the same merge code).
 */
async function oldInstall(ctx: ObserveContext, settings: string): Promise<ObserveHostRecord> {
  const script = join(ctx.hooksDir, 'claude-code-skill.sh');
  const item = { path: ['hooks', 'PreToolUse'], value: { matcher: 'Skill', hooks: [{ type: 'command', command: script, timeout: 5 }] } };
  const res = await reconcileObserveJson(settings, ctx.backupDir, 'json', undefined, { entries: claudeDesired(ctx).entries, items: [item] });
  const hook = await writeManagedFile(script, '#!/usr/bin/env bash\n# Forge (sf observe): registers this Claude Code session\nexit 0\n', 0o755, undefined);
  return { agent: 'claude-code', version: '0.1.0', appliedAt: new Date(0).toISOString(), port: ctx.port, jsonEdits: [res.edit!], tomlEdits: [], files: [hook.file!] };
}

describe('Claude Code observability: migrating an install that has the old Skill hook', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let ctx: ObserveContext;
  let settings: string;
  beforeEach(async () => {
    tmp = await tempDir('sf-claude-migrate-');
    const sfHome = join(tmp.path, '.sf');
    ctx = observeContext({ HOME: tmp.path, SF_HOME: sfHome, CLAUDE_CONFIG_DIR: join(tmp.path, 'claude') }, 14318);
    settings = join(tmp.path, 'claude', 'settings.json');
    await mkdir(join(tmp.path, 'claude'));
  });
  afterEach(() => tmp.cleanup());

  it('install/update removes the old hook entry and script, keeps the user\'s and Git AI\'s hooks, backs up; uninstall restores the user\'s file', async () => {
    await writeFile(settings, USER);
    const old = await oldInstall(ctx, settings);
    const legacy = JSON.parse(await readFile(settings, 'utf8'));
    assert.deepEqual(legacy.hooks.PreToolUse.map((b: { matcher: string }) => b.matcher), ['*', 'Bash', 'Skill'], 'the old install as it was');
    assert.deepEqual((await claudeObserveAdapter.diagnose(ctx, old)).map((d) => `${d.code}:${d.severity}`), ['SF_OBSERVE_DRIFT:warning'], 'doctor points at the leftover hook');
    const backupsBefore = await readdir(ctx.backupDir);

    const { record, diagnostics } = await claudeObserveAdapter.apply(ctx, old);
    assert.deepEqual(diagnostics, []);
    const now = JSON.parse(await readFile(settings, 'utf8'));
    assert.deepEqual(now.hooks, JSON.parse(USER).hooks, 'exactly the user\'s and Git AI\'s hooks, in their order');
    assert.equal(now.model, 'opus');
    assert.equal(now.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://127.0.0.1:14318');
    assert.ok(!existsSync(old.files[0].path), 'the hook script is gone');
    assert.deepEqual([record.files, record.jsonEdits[0].items], [[], []]);
    const backups = (await readdir(ctx.backupDir)).filter((b) => !backupsBefore.includes(b));
    assert.equal(backups.length, 1);
    assert.deepEqual(JSON.parse(await readFile(join(ctx.backupDir, backups[0]), 'utf8')), legacy, 'the backup holds the file with the old hook');
    assert.deepEqual(await claudeObserveAdapter.diagnose(ctx, record), []);

    // applying again changes nothing; uninstall leaves the user's file as it was before Forge
    await claudeObserveAdapter.apply(ctx, record);
    assert.deepEqual(JSON.parse(await readFile(settings, 'utf8')), now);
    assert.deepEqual(await claudeObserveAdapter.remove(ctx, record), []);
    assert.equal(await readFile(settings, 'utf8'), USER);
  });

  it('drops the hooks containers the old install created, and uninstall of a never-updated old install still cleans everything', async () => {
    const old = await oldInstall(ctx, settings);
    const { record } = await claudeObserveAdapter.apply(ctx, old);
    const now = JSON.parse(await readFile(settings, 'utf8'));
    assert.deepEqual(Object.keys(now), ['env'], 'no empty "hooks" left behind');
    assert.deepEqual(await claudeObserveAdapter.remove(ctx, record), []);
    assert.ok(!existsSync(settings), 'the file Forge created is gone again');

    await writeFile(settings, USER);
    const stale = await oldInstall(ctx, settings);
    assert.deepEqual(await claudeObserveAdapter.remove(ctx, stale), []);
    assert.equal(await readFile(settings, 'utf8'), USER);
    assert.ok(!existsSync(stale.files[0].path));
  });
});
