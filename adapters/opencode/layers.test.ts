import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isSfError, type Diagnostic } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { hostBinary, runHost } from '../../test-support/hosts/run-host.js';
import { createOpenCodeAdapter } from './adapter.js';
import { mergeConfigs } from './effective-permission.js';
import { opencodeConfigLayers, opencodeConfigSources } from './permission.js';

const write = async (file: string, text: string) => {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
};
const ALLOW_ALL = '{"permission": {"skill": {"*": "allow"}}}\n';
const errorsOf = (found: Diagnostic[]) => found.filter((d) => d.severity === 'error');

describe('opencode adapter: every config file OpenCode merges, in its order', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());
  const adapter = createOpenCodeAdapter();

  for (const rel of ['.opencode/opencode.jsonc', '.opencode/opencode.json', 'opencode.jsonc']) {
    it(`install refuses (SF_E_CONFLICT, naming the file and key) when ${rel}, merged after ./opencode.json, allows every skill`, async () => {
      await write(join(f.project, 'opencode.json'), '{"model": "x/y"}\n');
      const later = join(f.project, rel);
      await write(later, ALLOW_ALL);
      await assert.rejects(adapter.project(f.request(['beta']), f.ctx()), (e: unknown) =>
        isSfError(e, 'SF_E_CONFLICT') && e.message.includes(later) && e.message.includes('"permission.skill.*"') && typeof e.hint === 'string' && e.hint.includes(later));
      assert.equal(readFileSync(join(f.project, 'opencode.json'), 'utf8'), '{"model": "x/y"}\n', 'nothing written');
      assert.equal(existsSync(join(f.project, '.opencode/skills')), false, 'nothing projected');
    });
  }

  it('~/.opencode/opencode.json(c), which OpenCode merges last, is considered for both scopes', async () => {
    await write(join(f.home, '.opencode/opencode.jsonc'), '{"agent": {"build": {"permission": {"skill": "allow"}}}}\n');
    for (const scope of ['project', 'user'] as const) {
      await assert.rejects(adapter.project(f.request(['beta']), f.ctx(scope)), (e: unknown) =>
        isSfError(e, 'SF_E_CONFLICT') && e.message.includes(join(f.home, '.opencode/opencode.jsonc')) && /agent "build"/.test(e.message), scope);
    }
  });

  it('disable refuses too, and doctor flags a later allow added after install (SF_DRIFT_DISABLED_EXPOSED)', async () => {
    await write(join(f.project, 'opencode.json'), '{"model": "x/y"}\n');
    let record = await adapter.project(f.request([]), f.ctx());
    const later = join(f.project, '.opencode/opencode.jsonc');
    await write(later, ALLOW_ALL);
    await assert.rejects(adapter.setEnablement(f.request(['beta']), record, f.ctx()), (e: unknown) => isSfError(e, 'SF_E_CONFLICT') && e.message.includes(later));
    await writeFile(later, '{}\n');
    record = await adapter.setEnablement(f.request(['beta']), record, f.ctx());
    assert.deepEqual(errorsOf(await adapter.diagnose(f.request(['beta']), record, f.ctx())), []);
    await writeFile(later, ALLOW_ALL);
    const found = errorsOf(await adapter.diagnose(f.request(['beta']), record, f.ctx()));
    assert.ok(found.some((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED' && d.file === later && d.message.includes('acme/kit:beta') && d.message.includes('"permission.skill.*"')), JSON.stringify(found));
  });

  it('rules in an earlier file that Forge\'s deny outranks are fine', async () => {
    await write(join(f.home, '.config/opencode/opencode.json'), ALLOW_ALL);
    await write(join(f.project, 'opencode.json'), '{"permission": {"skill": {"*": "allow"}}}\n');
    await write(join(f.project, '.opencode/opencode.json'), '{"permission": {"skill": {"beta": "deny"}}}\n');
    const record = await adapter.project(f.request(['beta']), f.ctx());
    assert.deepEqual(errorsOf(await adapter.diagnose(f.request(['beta']), record, f.ctx())), []);
  });

  it('doctor evaluates the merged rules: a new opencode.jsonc in the global dir does not hide the deny in opencode.json', async () => {
    const json = join(f.home, '.config/opencode/opencode.json');
    const jsonc = join(f.home, '.config/opencode/opencode.jsonc');
    await write(json, '{"model":"x/y"}\n');
    const record = await adapter.project(f.request(['beta']), f.ctx('user'));
    assert.match(readFileSync(json, 'utf8'), /"beta":\s*"deny"/);
    await write(jsonc, '{"theme":"dark"}\n');
    assert.deepEqual(errorsOf(await adapter.diagnose(f.request(['beta']), record, f.ctx('user'))), []);
    // ... while a rule there that re-allows it is still found
    await writeFile(jsonc, '{"permission": {"skill": {"beta": "allow"}}}\n');
    const found = errorsOf(await adapter.diagnose(f.request(['beta']), record, f.ctx('user')));
    assert.ok(found.some((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED' && d.file === jsonc), JSON.stringify(found));
  });

  it('the layer list is the order the real OpenCode binary loads its config files in', async function () {
    this.timeout(60_000);
    const bin = hostBinary('opencode-ai/bin/opencode.exe', 'opencode-ai');
    const env = { OPENCODE_CONFIG: join(f.root, 'custom.json'), OPENCODE_CONFIG_DIR: join(f.root, 'cdir'), XDG_CONFIG_HOME: join(f.root, 'xdg'), OPENCODE_TEST_MANAGED_CONFIG_DIR: join(f.root, 'managed') };
    const ctx = { ...f.ctx('project'), env: { ...f.ctx('project').env, ...env } };
    // OpenCode looks for project files and .opencode dirs only where they exist
    for (const file of opencodeConfigLayers(ctx)) await write(file, '{}\n');
    const run = await runHost(bin, ['debug', 'config', '--print-logs'], {
      cwd: f.project, home: f.home, timeoutMs: 50_000,
      env: { ...env, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
    });
    const loaded = [...run.stderr.matchAll(/message=loading path=(\S+)/g)].map((m) => m[1]);
    assert.ok(loaded.length > 0, run.stderr.slice(0, 2000));
    assert.deepEqual(opencodeConfigLayers(ctx), loaded);
  });
});

describe('opencode adapter: the managed config dir and the configs held in environment variables', () => {
  let f: AdapterFixture;
  let managed: string;
  beforeEach(async () => {
    f = await adapterFixture();
    managed = join(f.root, 'managed');
  });
  afterEach(() => f.cleanup());
  const adapter = createOpenCodeAdapter();
  /** the fixture's context with its managed dir moved under the temp root (no /etc), plus `env` */
  const ctx = (env: Record<string, string> = {}, scope: 'project' | 'user' = 'project'): HostContext => {
    const base = f.ctx(scope);
    return { ...base, env: { ...base.env, OPENCODE_TEST_MANAGED_CONFIG_DIR: managed, ...env } };
  };
  const exposedIn = (found: Diagnostic[]) => errorsOf(found).filter((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED').map((d) => d.file);

  for (const scope of ['project', 'user'] as const) {
    it(`${scope} scope: a "*": "allow" in the managed dir's opencode.json, merged last, is found by doctor and refused by disable`, async () => {
      let record = await adapter.project(f.request([]), ctx({}, scope));
      const file = join(managed, 'opencode.json');
      await write(file, ALLOW_ALL);
      await assert.rejects(adapter.setEnablement(f.request(['beta']), record, ctx({}, scope)), (e: unknown) =>
        isSfError(e, 'SF_E_CONFLICT') && e.message.includes(file) && e.message.includes('"permission.skill.*"'));
      await writeFile(file, '{}\n');
      record = await adapter.setEnablement(f.request(['beta']), record, ctx({}, scope));
      assert.deepEqual(exposedIn(await adapter.diagnose(f.request(['beta']), record, ctx({}, scope))), []);
      await write(join(managed, 'opencode.jsonc'), '{"permission": {"skill": "allow"}} // managed\n');
      assert.deepEqual(exposedIn(await adapter.diagnose(f.request(['beta']), record, ctx({}, scope))), [join(managed, 'opencode.jsonc')]);
    });
  }

  it('OPENCODE_PERMISSION, merged into permission after every file, is found by doctor and refused by disable', async () => {
    let record = await adapter.project(f.request([]), ctx());
    const allow = { OPENCODE_PERMISSION: '{"skill": "allow"}' };
    await assert.rejects(adapter.setEnablement(f.request(['beta']), record, ctx(allow)), (e: unknown) =>
      isSfError(e, 'SF_E_CONFLICT') && e.message.includes('$OPENCODE_PERMISSION') && typeof e.hint === 'string' && e.hint.includes('$OPENCODE_PERMISSION'));
    record = await adapter.setEnablement(f.request(['beta']), record, ctx());
    assert.deepEqual(exposedIn(await adapter.diagnose(f.request(['beta']), record, ctx(allow))), ['$OPENCODE_PERMISSION']);
    // after the managed dir too: its deny does not outrank it
    await write(join(managed, 'opencode.json'), '{"permission": {"skill": {"beta": "deny"}}}\n');
    assert.deepEqual(exposedIn(await adapter.diagnose(f.request(['beta']), record, ctx({ OPENCODE_PERMISSION: '{"skill": {"*": "allow"}}' }))), ['$OPENCODE_PERMISSION']);
    // a rule for another skill, or a value OpenCode skips (not JSON, not an object), changes nothing
    for (const value of ['{"skill": {"alpha": "allow"}}', '{oops', '"allow"', '["allow"]']) {
      assert.deepEqual(exposedIn(await adapter.diagnose(f.request(['beta']), record, ctx({ OPENCODE_PERMISSION: value }))), [], value);
    }
  });

  it('OPENCODE_CONFIG_CONTENT comes after the config files and before the managed dir', async () => {
    const record = await adapter.project(f.request(['beta']), ctx());
    const content = { OPENCODE_CONFIG_CONTENT: '{\n  // an agent of the CI\n  "agent": {"build": {"permission": {"skill": "allow"}}},\n}' };
    const found = errorsOf(await adapter.diagnose(f.request(['beta']), record, ctx(content)));
    assert.deepEqual(found.map((d) => d.file), ['$OPENCODE_CONFIG_CONTENT'], JSON.stringify(found));
    assert.match(found[0].message, /agent "build"/);
    // the managed dir, merged after it, can deny again
    await write(join(managed, 'opencode.json'), '{"agent": {"build": {"permission": {"skill": {"beta": "deny"}}}}}\n');
    assert.deepEqual(exposedIn(await adapter.diagnose(f.request(['beta']), record, ctx(content))), []);
  });

  it('an OPENCODE_CONFIG_CONTENT that does not parse is SF_E_CONFIG for disable and a finding for doctor, naming the variable', async () => {
    let record = await adapter.project(f.request([]), ctx());
    const broken = { OPENCODE_CONFIG_CONTENT: '{"permission": ' };
    await assert.rejects(adapter.setEnablement(f.request(['beta']), record, ctx(broken)), (e: unknown) =>
      isSfError(e, 'SF_E_CONFIG') && e.message.startsWith('$OPENCODE_CONFIG_CONTENT does not parse') && /unset OPENCODE_CONFIG_CONTENT/.test(e.hint ?? ''));
    record = await adapter.setEnablement(f.request(['beta']), record, ctx());
    const found = errorsOf(await adapter.diagnose(f.request(['beta']), record, ctx(broken)));
    assert.deepEqual(found.map((d) => [d.code, d.file]), [['SF_DRIFT_CONFIG_INVALID', '$OPENCODE_CONFIG_CONTENT']]);
  });

  it('Forge merges these layers as the real OpenCode binary does', async function () {
    this.timeout(60_000);
    const bin = hostBinary('opencode-ai/bin/opencode.exe', 'opencode-ai');
    await write(join(f.project, 'opencode.json'), '{"permission": {"skill": {"beta": "deny", "a": "deny", "b": "deny", "c": "deny"}}}\n');
    await write(join(managed, 'opencode.json'), '{"permission": {"skill": {"b": "ask"}}}\n');
    await write(join(managed, 'opencode.jsonc'), '{"permission": {"skill": {"c": "ask"}}}\n');
    const env = {
      OPENCODE_TEST_MANAGED_CONFIG_DIR: managed, XDG_CONFIG_HOME: join(f.home, '.config'),
      OPENCODE_CONFIG_CONTENT: '{"permission": {"skill": {"a": "allow", "b": "allow", "c": "allow", "d": "allow"}}}',
      OPENCODE_PERMISSION: '{"skill": {"c": "allow", "e": "ask"}}',
    };
    const run = await runHost(bin, ['debug', 'config'], {
      cwd: f.project, home: f.home, timeoutMs: 50_000,
      env: { ...env, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
    });
    assert.equal(run.code, 0, run.stderr.slice(0, 2000));
    const theirs = JSON.parse(run.stdout).permission;
    const c = ctx(env);
    const docs = [];
    for (const s of opencodeConfigSources(c)) {
      if ('variable' in s) docs.push(s.variable === 'OPENCODE_PERMISSION' ? { permission: JSON.parse(s.text) } : JSON.parse(s.text));
      else if (existsSync(s.file)) docs.push(JSON.parse(readFileSync(s.file, 'utf8')));
    }
    assert.deepEqual(theirs, mergeConfigs(docs).permission);
    assert.deepEqual(theirs, { skill: { beta: 'deny', a: 'allow', b: 'ask', c: 'allow', d: 'allow', e: 'ask' } });
  });
});

describe('opencode adapter: same-named skills of the user that the name-based deny also turns off', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());
  const adapter = createOpenCodeAdapter();
  const shadows = (found: Diagnostic[]) => found.filter((d) => d.code === 'SF_ADAPTER_NAME_SHADOW');

  it('warns (SF_ADAPTER_NAME_SHADOW) about a foreign .claude/skills/beta that OpenCode also scans, at install and in doctor', async () => {
    const mine = join(f.project, '.claude/skills/beta');
    await write(join(mine, 'SKILL.md'), '---\nname: beta\ndescription: my own beta\n---\n# mine\n');
    const record = await adapter.project(f.request(['beta']), f.ctx());
    // what an install warns about (core/install/change-warnings.ts)
    const installed = shadows(await adapter.nameShadows!(f.request(['beta']), record, f.ctx()));
    assert.deepEqual(installed.map((d) => d.file), [mine], JSON.stringify(installed));
    const found = shadows(await adapter.diagnose(f.request(['beta']), record, f.ctx()));
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0].severity, 'warning');
    assert.equal(found[0].file, mine);
    assert.match(found[0].message, /"beta"/);
    assert.match(found[0].message, /deny/);
  });

  it('finds it by its SKILL.md name in the user\'s global roots too, and ignores Forge\'s own projections for other hosts', async () => {
    await write(join(f.home, '.agents/skills/my-b/SKILL.md'), '---\nname: "beta"\ndescription: mine\n---\n');
    await mkdir(join(f.project, '.claude/skills'), { recursive: true });
    await symlink(f.sourceDirs.alpha, join(f.project, '.claude/skills/alpha'));
    const record = await adapter.project(f.request(['beta']), f.ctx());
    const found = shadows(await adapter.diagnose(f.request(['beta']), record, f.ctx()));
    assert.deepEqual(found.map((d) => d.file), [join(f.home, '.agents/skills/my-b')]);
  });

  it('says nothing when no other skill has the name', async () => {
    const record = await adapter.project(f.request(['beta']), f.ctx());
    assert.deepEqual(shadows(await adapter.diagnose(f.request(['beta']), record, f.ctx())), []);
  });
});
