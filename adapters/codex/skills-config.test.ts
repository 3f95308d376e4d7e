import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManagedConfigEdit } from '../config/managed.js';
import { runGoldenCase, type GoldenCase } from '../../test-support/host-config-golden.js';
import { tempDir } from '../../test-support/index.js';
import { isSfError } from '../../core/errors/index.js';
import { parseTomlConfig } from '../config/toml-blocks.js';
import { reconcileCodexConfig } from './reconcile-config.js';
import { planCodexConfig } from './skills-config.js';

const root = '/home/me/proj/.agents/skills';
const skills = (phase: 'install' | 'remove') => phase === 'remove' ? [] : [
  { skillId: 'acme/kit:alpha', name: 'alpha', skillMdPath: `${root}/alpha/SKILL.md`, enabled: true },
  { skillId: 'acme/kit:beta', name: 'beta', skillMdPath: `${root}/beta/SKILL.md`, enabled: false },
];

const cases: GoldenCase[] = [
  { name: 'comments-and-tables', file: 'config.toml' },
  { name: 'crlf', file: 'config.toml' },
  // CRLF and no final newline: the newline Forge adds to append its block goes again with it
  { name: 'no-final-newline', file: 'config.toml' },
  { name: 'empty', file: 'config.toml' },
  { name: 'trailing-blank-lines', file: 'config.toml' },
  { name: 'whitespace-only', file: 'config.toml' },
  { name: 'missing', file: 'config.toml' },
  { name: 'other-skit-block', file: 'config.toml' },
  // a marked block the user edited is Forge's: restored on install, removed on remove
  { name: 'drifted-block', file: 'config.toml', inexactRestore: true },
  { name: 'user-disables-enabled', file: 'config.toml', diagnostics: ['SF_ADAPTER_USER_OVERRIDE'] },
  // a marked block with a key Forge never writes (a line appended after it belongs to it in TOML)
  // is the user's now: kept on remove, and Forge adds its own block beside it
  { name: 'edited-block-extra-key', file: 'config.toml', diagnostics: ['SF_ADAPTER_CONFIG_DRIFT'] },
  // Forge's entry without its marker already disables beta exactly: no second entry, and it stays the user's
  { name: 'unmarked-forge-entry', file: 'config.toml' },
  { name: 'user-enables-conflict', file: 'config.toml', error: 'SF_E_CONFLICT' },
  { name: 'inline-skills-table', file: 'config.toml', error: 'SF_E_CONFIG' },
  { name: 'invalid', file: 'config.toml', error: 'SF_E_CONFIG' },
];

describe('codex [[skills.config]] merge (golden files)', () => {
  for (const c of cases) {
    it(c.name, () => runGoldenCase('codex', c, (file, backups, prev, phase) => reconcileCodexConfig({ file, backupDir: backups, previous: prev, desired: skills(phase) })));
  }
});

describe('codex [[skills.config]] separators', () => {
  const state = (kit: string, enabled: boolean) => ({ skillId: `${kit}:s`, name: `${kit.split('/')[1]}-s`, skillMdPath: `${root}/${kit.split('/')[1]}-s/SKILL.md`, enabled });
  const user = 'model = "o3"\n\n\n# the user\'s own blank lines above and below\n\n';

  for (const order of [['a', 'b'], ['b', 'a']] as const) {
    it(`gives the user's bytes back when two SKITs' blocks go in the order ${order.join(', ')}`, async () => {
      const tmp = await tempDir('sf-codex-sep-');
      try {
        const file = join(tmp.path, 'config.toml');
        await writeFile(file, user);
        const edits = {
          a: (await reconcileCodexConfig({ file, backupDir: join(tmp.path, 'b'), desired: [state('acme/a', false)] })).edit,
          b: (await reconcileCodexConfig({ file, backupDir: join(tmp.path, 'b'), desired: [state('acme/b', false)] })).edit,
        };
        assert.equal((await readFile(file, 'utf8')).split('# managed by sf').length, 3);
        for (const kit of order) await reconcileCodexConfig({ file, backupDir: join(tmp.path, 'b'), previous: edits[kit], desired: [state(`acme/${kit}`, true)] });
        assert.equal(await readFile(file, 'utf8'), user);
      } finally {
        await tmp.cleanup();
      }
    });
  }

  it('still removes blocks of a record written before separators were kept (one blank line, and the final newline it added)', async () => {
    const tmp = await tempDir('sf-codex-sep-');
    try {
      const file = join(tmp.path, 'config.toml');
      const block = `# managed by sf: acme/a:s\n[[skills.config]]\npath = "${root}/a-s/SKILL.md"\nenabled = false\n`;
      await writeFile(file, `model = "o3"\n\n${block}`);
      const old: ManagedConfigEdit = { file, format: 'toml', origin: 'existing', created: [], addedFinalNewline: true, managed: [{ skillId: 'acme/a:s', path: ['skills', 'config', 'path', `${root}/a-s/SKILL.md`], value: false }] };
      const res = await reconcileCodexConfig({ file, backupDir: join(tmp.path, 'b'), previous: old, desired: [state('acme/a', true)] });
      assert.equal(res.edit, undefined);
      assert.equal(await readFile(file, 'utf8'), 'model = "o3"');
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('codex [[skills.config]] next to text that only looks like Forge\'s blocks', () => {
  const beta = skills('install');
  const block = `# managed by sf: acme/kit:beta\n[[skills.config]]\npath = "${root}/beta/SKILL.md"\nenabled = false\n`;
  const entries = (text: string) => ((parseTomlConfig(text, 'config.toml').skills as { config?: unknown[] } | undefined)?.config ?? []);
  const betaOff = [{ path: `${root}/beta/SKILL.md`, enabled: false }];

  for (const [kind, quotes] of [['basic', '"""'], ['literal', "'''"]] as const) {
    it(`a copy of Forge's block quoted in a multi-line ${kind} string is text: the real block is kept`, () => {
      const text = `notes = ${quotes}\nsf wrote this:\n${block}${quotes}\n\n${block}`;
      const plan = planCodexConfig(text, 'config.toml', beta, '\n');
      assert.equal(plan.text, text, 'nothing to change');
      assert.deepEqual(entries(plan.text), betaOff);
      // a reconcile of the other child keeps the real block too
      const other = planCodexConfig(text, 'config.toml', beta.map((s) => ({ ...s, enabled: s.name === 'beta' ? false : s.enabled })), '\n');
      assert.deepEqual(entries(other.text), betaOff);
    });

    it(`a quoted copy does not stand in for the block at install (${kind})`, () => {
      const text = `notes = ${quotes}\n${block}${quotes}\n`;
      const plan = planCodexConfig(text, 'config.toml', beta, '\n');
      assert.deepEqual(entries(plan.text), betaOff, 'Forge\'s block was appended');
      assert.ok(plan.text.startsWith(text));
    });
  }

  it('marker-like lines that would not parse as key lines inside a string are no block (no internal error)', () => {
    const text = 'x = """\n# managed by sf: acme/kit:beta\n[[skills.config]]\npath = "abc\n"""\n';
    const plan = planCodexConfig(text, 'config.toml', beta, '\n');
    assert.ok(plan.text.startsWith(text));
    assert.deepEqual(entries(plan.text), betaOff);
    assert.equal(planCodexConfig(text, 'config.toml', beta.map((s) => ({ ...s, enabled: true })), '\n').text, text);
  });

  it('a """ in a comment or a one-line string opens no string', () => {
    const text = `a = "say \\"\\"\\" here" # and """ there\nb = 'x"""'\n\n${block}`;
    assert.deepEqual(entries(text), betaOff);
    assert.equal(planCodexConfig(text, 'config.toml', beta, '\n').text, text, 'the real block is found');
  });

  it('a marked block whose key lines do not parse alone is not taken for Forge\'s (a clean error or the user\'s entry, never SF_E_INTERNAL)', () => {
    const text = `# managed by sf: acme/kit:beta\n[[skills.config]]\npath = "${root}/beta/SKILL.md"\nenabled = false\nnote = [\n  1,\n]\n`;
    let plan;
    try {
      plan = planCodexConfig(text, 'config.toml', beta.map((s) => ({ ...s, enabled: true })), '\n');
    } catch (e) {
      assert.ok(isSfError(e) && e.code !== 'SF_E_INTERNAL', String(e));
      return;
    }
    assert.equal(plan.text, text, 'the user\'s entry is left alone');
  });
});

describe('codex [[skills.config]] removed from a file without a final newline, with text appended after the block', () => {
  const beta = (enabled: boolean) => [{ skillId: 'acme/kit:beta', name: 'beta', skillMdPath: `${root}/beta/SKILL.md`, enabled }];
  const profile = '[profiles.work]\nmodel = "gpt-5"\n';

  for (const eol of ['\n', '\r\n']) {
    it(`enable takes the block out, keeps the user's table and ends the user's line (${JSON.stringify(eol)})`, async () => {
      const tmp = await tempDir('sf-codex-nofinal-');
      try {
        const file = join(tmp.path, 'config.toml');
        await writeFile(file, `model = "o3"${eol}x = 1`);
        const off = await reconcileCodexConfig({ file, backupDir: join(tmp.path, 'b'), desired: beta(false) });
        // the user (or `codex mcp add`) appends a table right after Forge's block
        await writeFile(file, (await readFile(file, 'utf8')) + profile.replaceAll('\n', eol));
        const on = await reconcileCodexConfig({ file, backupDir: join(tmp.path, 'b'), previous: off.edit, desired: beta(true) });
        assert.equal(on.edit, undefined);
        const text = await readFile(file, 'utf8');
        assert.equal(text, `model = "o3"${eol}x = 1${eol}${profile.replaceAll('\n', eol)}`);
        assert.deepEqual(parseTomlConfig(text, file), { model: 'o3', x: 1, profiles: { work: { model: 'gpt-5' } } });
      } finally {
        await tmp.cleanup();
      }
    });
  }

  it('a block the user moved into the middle of the file comes out too, the line before it ended', () => {
    const text = `model = "o3"\n\n# managed by sf: acme/kit:beta\n[[skills.config]]\npath = "${root}/beta/SKILL.md"\nenabled = false\n[profiles.work]\nmodel = "gpt-5"\n`;
    const plan = planCodexConfig(text, 'config.toml', beta(true), '\n', undefined, { 'acme/kit:beta': '\n\n' });
    assert.equal(plan.text, `model = "o3"\n${profile}`);
  });

  it('with only blank text after the block, the whole separator goes: the file ends as it did', () => {
    const text = `model = "o3"\n\n# managed by sf: acme/kit:beta\n[[skills.config]]\npath = "${root}/beta/SKILL.md"\nenabled = false\n\n  \n`;
    assert.equal(planCodexConfig(text, 'config.toml', beta(true), '\n', undefined, { 'acme/kit:beta': '\n\n' }).text, 'model = "o3"\n  \n');
  });

  it('a removal that would still break the file is refused as removing, not adding', () => {
    // `foo = 2` after the comment belongs to Forge's entry in TOML; without the block it would repeat the top-level foo
    const text = `foo = 1\n\n# managed by sf: acme/kit:beta\n[[skills.config]]\npath = "${root}/beta/SKILL.md"\nenabled = false\n# note\nfoo = 2\n`;
    assert.throws(() => planCodexConfig(text, 'config.toml', beta(true), '\n'), (e: unknown) => {
      assert.ok(isSfError(e, 'SF_E_CONFIG'), String(e));
      assert.match(e.message, /removing Forge's \[\[skills\.config\]\] tables would make the file invalid TOML/);
      assert.doesNotMatch(e.hint ?? '', /inline table/);
      return true;
    });
  });
});
