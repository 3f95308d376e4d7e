import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isSfError } from '../../core/errors/index.js';
import type { HostAdapter } from '../../core/install/host-adapter.js';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { createClaudeCodeAdapter } from '../claude-code/adapter.js';
import { createCodexAdapter } from '../codex/adapter.js';
import { createOpenCodeAdapter } from '../opencode/adapter.js';
import { parse as parseToml } from 'smol-toml';
import { parse as parseJsonc } from 'jsonc-parser';

interface HostCase {
  adapter: HostAdapter;
  skillRoot(f: AdapterFixture): string;
  configFile(f: AdapterFixture): string;
  /** true when the config switches beta off (and not alpha) */
  betaOff(text: string, f: AdapterFixture): boolean;
  userFile: string;
  conflict: string;
  invalid: string;
  /** JSON hosts: the user's own entry that already switches beta off, and an empty container of the user's */
  userOff?: string;
  userEmptyContainer?: string[];
}

const cases: HostCase[] = [
  {
    adapter: createClaudeCodeAdapter(),
    skillRoot: (f) => join(f.project, '.claude/skills'),
    configFile: (f) => join(f.project, '.claude/settings.local.json'),
    betaOff: (t) => { const o = parseJsonc(t).skillOverrides ?? {}; return o.beta === 'off' && o.alpha === undefined; },
    // strict JSON, as Claude Code reads it (it skips a file with a comment whole: layers.ts), in the user's own layout
    userFile: '{\n\t"model":   "opus",\n  "permissions": {"allow": []}\n}\n',
    conflict: '{ "skillOverrides": { "beta": "on" } }\n',
    invalid: '{ "model": \n',
    userOff: '{\n  "permissions": {"allow": []},\n  "skillOverrides": {\n    "beta": "off"\n  }\n}\n',
    userEmptyContainer: ['{"a":1,"skillOverrides":{}}', '{\n  "skillOverrides": {\n    // none yet\n  }\n}\n'],
  },
  {
    adapter: createCodexAdapter(),
    skillRoot: (f) => join(f.project, '.agents/skills'),
    configFile: (f) => join(f.home, '.codex/config.toml'),
    betaOff: (t, f) => {
      const list = ((parseToml(t) as any).skills?.config ?? []) as any[];
      return list.length === 1 && list[0].path === join(f.project, '.agents/skills/beta/SKILL.md') && list[0].enabled === false;
    },
    userFile: '# mine\nmodel = "o4"\n',
    conflict: '[[skills.config]]\nname = "beta"\nenabled = true\n',
    invalid: 'model = \n',
  },
  {
    adapter: createOpenCodeAdapter(),
    skillRoot: (f) => join(f.project, '.opencode/skills'),
    configFile: (f) => join(f.project, 'opencode.json'),
    betaOff: (t) => { const s = parseJsonc(t).permission?.skill ?? {}; return s.beta === 'deny' && s.alpha === undefined; },
    userFile: '{\n  "theme": "tokyonight", // mine\n}\n',
    conflict: '{ "permission": { "skill": { "beta": "allow" } } }\n',
    invalid: '{ "permission": { \n',
    userOff: '{\n  // I never want beta\n  "permission": {\n    "skill": {\n      "beta": "deny" // mine\n    }\n  }\n}\n',
    userEmptyContainer: ['{ "permission": { "skill": {} } }\n', '{\n  "permission": {\n    // mine\n    "skill": {}\n  }\n}\n'],
  },
];

for (const c of cases) {
  describe(`${c.adapter.id} adapter`, () => {
    let f: AdapterFixture;
    beforeEach(async () => (f = await adapterFixture()));
    afterEach(() => f.cleanup());

    const write = async (file: string, text: string) => {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
    };

    it('projects every child as a store link, switches the disabled one off natively, and remove restores the config byte for byte', async () => {
      const file = c.configFile(f);
      await write(file, c.userFile);
      const record = await c.adapter.project(f.request(['beta']), f.ctx());
      assert.equal(record.skillRoot, c.skillRoot(f));
      for (const name of ['alpha', 'beta']) assert.ok(lstatSync(join(c.skillRoot(f), name)).isSymbolicLink(), `${name} projected`);
      assert.ok(c.betaOff(readFileSync(file, 'utf8'), f), 'beta switched off in the host config');
      assert.equal(record.configEdits.length, 1);
      assert.ok(record.configEdits[0].backup && readFileSync(record.configEdits[0].backup, 'utf8') === c.userFile, 'backup of the previous bytes');
      assert.deepEqual((await c.adapter.diagnose(f.request(['beta']), record, f.ctx())).filter((d) => d.severity === 'error'), []);
      await c.adapter.unproject(record, f.ctx());
      assert.equal(readFileSync(file, 'utf8'), c.userFile);
      assert.deepEqual(await readdir(c.skillRoot(f)), []);
    });

    it('enable removes Forge\'s entry (a config Forge created is deleted), disable writes it again', async () => {
      const file = c.configFile(f);
      let record = await c.adapter.project(f.request(['beta']), f.ctx());
      assert.ok(c.betaOff(readFileSync(file, 'utf8'), f));
      record = await c.adapter.setEnablement(f.request([]), record, f.ctx());
      assert.equal(existsSync(file), false, 'the file Forge created is gone once it holds nothing of Forge');
      assert.deepEqual(record.configEdits, []);
      assert.equal(record.paths.length, 2, 'enabled children stay projected');
      record = await c.adapter.setEnablement(f.request(['beta']), record, f.ctx());
      assert.ok(c.betaOff(readFileSync(file, 'utf8'), f));
    });

    it('diagnose reports a removed config entry as a disabled child exposed, and setEnablement repairs it', async () => {
      const file = c.configFile(f);
      await write(file, c.userFile);
      const record = await c.adapter.project(f.request(['beta']), f.ctx());
      await writeFile(file, c.userFile);
      const found = await c.adapter.diagnose(f.request(['beta']), record, f.ctx());
      assert.ok(found.some((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED' && d.severity === 'error' && d.message.includes('acme/kit:beta')), JSON.stringify(found));
      const fixed = await c.adapter.setEnablement(f.request(['beta']), record, f.ctx());
      assert.ok(c.betaOff(readFileSync(file, 'utf8'), f));
      assert.deepEqual((await c.adapter.diagnose(f.request(['beta']), fixed, f.ctx())).filter((d) => d.severity === 'error'), []);
    });

    it('never creates a project that is gone: setEnablement (a doctor repair) fails with SF_E_NOT_FOUND, and unproject leaves it gone', async () => {
      const record = await c.adapter.project(f.request(['beta']), f.ctx());
      await rm(f.project, { recursive: true });
      await assert.rejects(c.adapter.setEnablement(f.request(['beta']), record, f.ctx()), (e: unknown) => isSfError(e, 'SF_E_NOT_FOUND') && /sf skit remove acme\/kit --project/.test(e.hint ?? ''));
      await assert.rejects(c.adapter.project(f.request([]), f.ctx()), (e: unknown) => isSfError(e, 'SF_E_NOT_FOUND'));
      await c.adapter.unproject(record, f.ctx());
      assert.equal(existsSync(f.project), false, 'the project directory was created again');
    });

    it('a same-named skill directory Forge does not own fails with SF_E_NAME_COLLISION and changes nothing', async () => {
      const mine = join(c.skillRoot(f), 'beta');
      await write(join(mine, 'SKILL.md'), '---\nname: beta\ndescription: my own\n---\n');
      await assert.rejects(c.adapter.project(f.request(['beta']), f.ctx()), (e: unknown) => isSfError(e, 'SF_E_NAME_COLLISION') && (e.data?.diagnostics as unknown[]).length === 1);
      assert.equal(existsSync(c.configFile(f)), false, 'no config written');
      assert.deepEqual(await readdir(c.skillRoot(f)), ['beta'], 'nothing projected');
      assert.equal(readFileSync(join(mine, 'SKILL.md'), 'utf8').includes('my own'), true);
    });

    it('a user override that keeps the disabled child on fails with SF_E_CONFLICT and projects nothing', async () => {
      const file = c.configFile(f);
      await write(file, c.conflict);
      await assert.rejects(c.adapter.project(f.request(['beta']), f.ctx()), (e: unknown) => isSfError(e, 'SF_E_CONFLICT'));
      assert.equal(readFileSync(file, 'utf8'), c.conflict);
      assert.equal(existsSync(c.skillRoot(f)), false);
    });

    it('a config file that does not parse fails with SF_E_CONFIG (with a location) and projects nothing', async () => {
      const file = c.configFile(f);
      await write(file, c.invalid);
      await assert.rejects(c.adapter.project(f.request(['beta']), f.ctx()), (e: unknown) => isSfError(e, 'SF_E_CONFIG') && e.location?.file === file && typeof e.location.line === 'number');
      assert.equal(readFileSync(file, 'utf8'), c.invalid);
      assert.equal(existsSync(c.skillRoot(f)), false);
    });

    it('project() again without the record adopts Forge\'s own entries, so remove still restores the file', async () => {
      const file = c.configFile(f);
      await write(file, c.userFile);
      await c.adapter.project(f.request(['beta']), f.ctx());
      const again = await c.adapter.project(f.request(['beta']), f.ctx());
      assert.equal(again.configEdits.length, 1, 'Forge still owns its entry');
      await c.adapter.unproject(again, f.ctx());
      assert.equal(readFileSync(file, 'utf8'), c.userFile);
    });

    if (c.userOff) {
      it('the user\'s own entry that already switches a child off stays theirs: disable, enable and remove leave it', async () => {
        const file = c.configFile(f);
        await write(file, c.userOff!);
        let record = await c.adapter.project(f.request([]), f.ctx());
        record = await c.adapter.setEnablement(f.request(['beta']), record, f.ctx());
        assert.equal(readFileSync(file, 'utf8'), c.userOff, 'nothing to write: the user already says it');
        assert.deepEqual(record.configEdits, [], 'Forge does not take the user\'s entry over');
        record = await c.adapter.setEnablement(f.request([]), record, f.ctx());
        assert.equal(readFileSync(file, 'utf8'), c.userOff, 'enable leaves the user\'s entry');
        record = await c.adapter.setEnablement(f.request(['beta']), record, f.ctx());
        await c.adapter.unproject(record, f.ctx());
        assert.equal(readFileSync(file, 'utf8'), c.userOff, 'remove leaves the user\'s entry');
      });

      it('an entry Forge wrote in a command that was interrupted before its record was kept is still Forge\'s when the command is run again', async () => {
        const file = c.configFile(f);
        await write(file, c.userFile);
        const installed = await c.adapter.project(f.request([]), f.ctx());
        await c.adapter.setEnablement(f.request(['beta']), installed, f.ctx());
        // recovery replays the step with the record from before it
        const replayed = await c.adapter.setEnablement(f.request(['beta']), installed, f.ctx());
        assert.equal(replayed.configEdits.length, 1, 'Forge owns the entry it wrote');
        await c.adapter.unproject(replayed, f.ctx());
        assert.equal(readFileSync(file, 'utf8'), c.userFile);
      });

      for (const [i, original] of c.userEmptyContainer!.entries()) {
        it(`a container the user already had stays when Forge's last entry leaves it (${i + 1})`, async () => {
          const file = c.configFile(f);
          await write(file, original);
          let record = await c.adapter.project(f.request([]), f.ctx());
          record = await c.adapter.setEnablement(f.request(['beta']), record, f.ctx());
          assert.ok(c.betaOff(readFileSync(file, 'utf8'), f));
          const enabled = await c.adapter.setEnablement(f.request([]), record, f.ctx());
          assert.equal(readFileSync(file, 'utf8'), original, 'enable gives the original bytes back');
          record = await c.adapter.setEnablement(f.request(['beta']), enabled, f.ctx());
          await c.adapter.unproject(record, f.ctx());
          assert.equal(readFileSync(file, 'utf8'), original, 'remove gives the original bytes back');
        });
      }
    }

    it('detect reports the config it finds', async () => {
      const file = c.configFile(f);
      await write(file, c.userFile);
      const det = await c.adapter.detect(f.ctx());
      assert.equal(det.present, true);
      assert.ok(det.configFiles.includes(file));
      await rm(file);
    });
  });
}

describe('opencode adapter: later rules that would re-allow a disabled child', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());

  it('refuses (SF_E_CONFLICT) when an agent\'s own permission, even in the global config, would allow it', async () => {
    const adapter = createOpenCodeAdapter();
    const global = join(f.home, '.config/opencode/opencode.json');
    await mkdir(dirname(global), { recursive: true });
    await writeFile(global, '{ "agent": { "build": { "permission": { "skill": "allow" } } } }\n');
    await assert.rejects(adapter.project(f.request(['beta']), f.ctx()), (e: unknown) => isSfError(e, 'SF_E_CONFLICT') && /agent "build"/.test(e.message));
    assert.equal(existsSync(join(f.project, 'opencode.json')), false, 'nothing written');
    assert.equal(existsSync(join(f.project, '.opencode/skills')), false, 'nothing projected');
  });
});

describe('claude-code adapter: user scope', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());

  it('honours CLAUDE_CONFIG_DIR for the skill root and settings.json', async () => {
    const adapter = createClaudeCodeAdapter();
    const dir = join(f.root, 'claude-config');
    const ctx = { ...f.ctx('user'), env: { ...f.ctx('user').env, CLAUDE_CONFIG_DIR: dir } };
    const record = await adapter.project(f.request(['beta']), ctx);
    assert.equal(record.skillRoot, join(dir, 'skills'));
    assert.equal(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).skillOverrides.beta, 'off');
    await adapter.unproject(record, ctx);
    assert.equal(existsSync(join(dir, 'settings.json')), false);
  });
});

describe('codex adapter: a config.toml linked out of the home directory', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());

  for (const scope of ['project', 'user'] as const) {
    it(`is refused the same way at ${scope} scope (SF_E_UNSAFE_PATH), nothing written through the link`, async () => {
      const outside = join(f.root, 'outside', 'config.toml');
      await mkdir(dirname(outside), { recursive: true });
      await writeFile(outside, 'model = "o3"\n');
      await mkdir(join(f.home, '.codex'), { recursive: true });
      await symlink(outside, join(f.home, '.codex', 'config.toml'));
      const adapter = createCodexAdapter();
      await assert.rejects(adapter.project(f.request(['beta']), f.ctx(scope)), (e: unknown) => isSfError(e, 'SF_E_UNSAFE_PATH') && /out of your home directory/.test(e.message));
      assert.equal(readFileSync(outside, 'utf8'), 'model = "o3"\n');
    });
  }
});
