import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import type { HostContext, Scope } from '../../core/install/host-adapter.js';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { createClaudeCodeAdapter } from './adapter.js';
import { CLAUDE_MANAGED_DIR_VAR, claudeLayersAbove } from './layers.js';

const write = async (file: string, text: string) => {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
};
const overrides = (value: string, name = 'beta') => JSON.stringify({ skillOverrides: { [name]: value } }) + '\n';
const exposed = (found: Diagnostic[]) => found.filter((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED');

/**
 * Claude Code ranks its settings user < project < local < flag < policy (managed-settings.json,
 * then managed-settings.d/*.json by name); checked against the 2.1.328 binary: a managed "on"
 * shows a skill that settings.local.json turns "off", a drop-in outranks the base file and a later
 * drop-in an earlier one, `.claude/settings.json` is read in the directory Claude runs in and
 * `.claude/settings.local.json` at the repository root around it, a file with a comment is skipped
 * whole, and a value other than the four it knows is dropped.
 */
describe('claude-code adapter: settings files that outrank Forge\'s skillOverrides entry', () => {
  let f: AdapterFixture;
  let managed: string;
  beforeEach(async () => {
    f = await adapterFixture();
    managed = join(f.root, 'managed');
  });
  afterEach(() => f.cleanup());
  const adapter = createClaudeCodeAdapter();
  const ctx = (scope: Scope = 'project', cwd?: string): HostContext => {
    const base = f.ctx(scope);
    return { ...base, env: { ...base.env, [CLAUDE_MANAGED_DIR_VAR]: managed }, ...(cwd ? { cwd } : {}) };
  };

  it('doctor reports a managed "on" for a disabled child (SF_DRIFT_DISABLED_EXPOSED, naming the file and key); disable goes ahead and warns', async () => {
    const record = await adapter.project(f.request(['beta']), ctx());
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx())), []);
    const file = join(managed, 'managed-settings.json');
    await write(file, overrides('on'));
    const found = exposed(await adapter.diagnose(f.request(['beta']), record, ctx()));
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0].severity, 'error');
    assert.equal(found[0].file, file);
    assert.match(found[0].message, /acme\/kit:beta is disabled/);
    assert.match(found[0].message, /"skillOverrides\.beta": "on"/);
    assert.ok(found[0].message.includes(join(f.project, '.claude/settings.local.json')), found[0].message);
    assert.match(found[0].hint ?? '', /administrator/);
    // the change is made, and what an install or enable/disable says (core/install/change-warnings.ts) names it
    const again = await adapter.setEnablement(f.request(['beta']), record, ctx());
    const warned = exposed(await adapter.nameShadows!(f.request(['beta']), again, ctx()));
    assert.deepEqual(warned.map((d) => [d.severity, d.file]), [['warning', file]]);
    // an enabled child is not reported
    assert.deepEqual(exposed(await adapter.diagnose(f.request([]), again, ctx())), []);
  });

  it('reports a disabled child whose "off" sits in a file Claude Code skips (a comment: it reads strict JSON), at doctor and at the change', async () => {
    const settings = join(f.project, '.claude', 'settings.local.json');
    await write(settings, '{\n  // my notes\n  "model": "opus"\n}\n');
    const record = await adapter.project(f.request(['beta']), ctx());
    // Forge kept the comment and added its entry
    const found = exposed(await adapter.diagnose(f.request(['beta']), record, ctx()));
    assert.deepEqual(found.map((d) => [d.severity, d.file]), [['error', settings]], JSON.stringify(found));
    assert.match(found[0].message, /acme\/kit:beta is disabled in .*settings\.local\.json, but Claude Code reads that file as strict JSON and skips all of it/);
    assert.match(found[0].hint ?? '', /remove the comments and trailing commas/);
    assert.deepEqual(exposed(await adapter.nameShadows!(f.request(['beta']), record, ctx())).map((d) => d.severity), ['warning']);
    // strict JSON again: nothing to report; nothing disabled: nothing to report
    await write(settings, JSON.stringify({ model: 'opus', skillOverrides: { beta: 'off' } }, null, 2) + '\n');
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx())), []);
    await write(settings, '{ /* c */ }\n');
    assert.deepEqual(exposed(await adapter.diagnose(f.request([]), record, ctx())), []);
  });

  it('a later drop-in in managed-settings.d outranks the base file and earlier drop-ins; hidden and non-.json files are not read', async () => {
    const record = await adapter.project(f.request(['beta']), ctx());
    const check = async () => exposed(await adapter.diagnose(f.request(['beta']), record, ctx())).map((d) => d.file);
    await write(join(managed, 'managed-settings.json'), overrides('on'));
    await write(join(managed, 'managed-settings.d/10-team.json'), overrides('off'));
    assert.deepEqual(await check(), [], 'the drop-in "off" wins over the base "on"');
    await write(join(managed, 'managed-settings.d/20-late.json'), overrides('name-only'));
    assert.deepEqual(await check(), [join(managed, 'managed-settings.d/20-late.json')]);
    await write(join(managed, 'managed-settings.d/20-late.json'), overrides('off'));
    await write(join(managed, 'managed-settings.d/.hidden.json'), overrides('on'));
    await write(join(managed, 'managed-settings.d/30-notes.txt'), overrides('on'));
    assert.deepEqual(await check(), []);
  });

  it('what Claude Code would skip changes nothing: a file with a comment, a value it does not know, another skill\'s name', async () => {
    const record = await adapter.project(f.request(['beta']), ctx());
    const file = join(managed, 'managed-settings.json');
    for (const text of ['{\n  // on for everyone\n  "skillOverrides": {"beta": "on"}\n}\n', overrides('ON'), overrides('on', 'alpha'), '{"skillOverrides": ["beta"]}\n']) {
      await write(file, text);
      assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx())), [], text);
    }
    await write(file, `\uFEFF${overrides('user-invocable-only')}`);
    assert.equal(exposed(await adapter.diagnose(f.request(['beta']), record, ctx())).length, 1, 'a BOM is fine');
  });

  it('a project install is not outranked by the project\'s committed .claude/settings.json (Forge writes settings.local.json)', async () => {
    await write(join(f.project, '.claude/settings.json'), overrides('on'));
    const record = await adapter.project(f.request(['beta']), ctx('project', f.project));
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx('project', f.project))), []);
  });

  it('a user install, checked in the project the command runs in: its .claude/settings.json and the repository\'s settings.local.json', async () => {
    const record = await adapter.project(f.request(['beta']), ctx('user', f.project));
    const sub = join(f.project, 'src');
    await mkdir(sub, { recursive: true });
    const committed = join(f.project, '.claude/settings.json');
    await write(committed, overrides('on'));
    const inProject = exposed(await adapter.diagnose(f.request(['beta']), record, ctx('user', f.project)));
    assert.deepEqual(inProject.map((d) => d.file), [committed]);
    assert.ok(inProject[0].message.includes(`when it runs in ${f.project}`), inProject[0].message);
    assert.ok(inProject[0].message.includes(join(f.home, '.claude/settings.json')), 'names Forge\'s file');
    // Claude Code run in a subdirectory reads that directory's settings.json, not the root's
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx('user', sub))), []);
    // ... but the local settings at the repository root, which outrank the project file
    const local = join(f.project, '.claude/settings.local.json');
    await write(local, overrides('on'));
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx('user', sub))).map((d) => d.file), [local]);
    await write(local, overrides('off'));
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx('user', f.project))), [], 'local "off" outranks the project "on"');
    // outside any project (and without a cwd) only the managed files are checked
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx('user'))), []);
    assert.deepEqual(claudeLayersAbove(ctx('user')).map((l) => l.source), ['managed']);
  });

  it('run in the home directory, a user install does not take its own settings.json for a project file', async () => {
    const record = await adapter.project(f.request(['beta']), ctx('user', f.home));
    assert.ok(!claudeLayersAbove(ctx('user', f.home)).some((l) => l.file === join(f.home, '.claude/settings.json')));
    assert.deepEqual(exposed(await adapter.diagnose(f.request(['beta']), record, ctx('user', f.home))), []);
  });
});
