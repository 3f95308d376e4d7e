import { strict as assert } from 'node:assert';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { isSfError } from '../errors/index.js';
import type { InstallationRecord } from '../library/types.js';
import { planEnablement } from './plan-enablement.js';
import { planInstall, type InstallInput } from './plan-install.js';
import { planRemove } from './plan-remove.js';
import type { Observations, PlanEnv, PreparedRelease, TargetSpec } from './plan-types.js';

const H = (c: string) => `sha256:${c.repeat(64)}`;
const env = (): PlanEnv => {
  let n = 0;
  return { storeRoot: '/sf/store', now: '2026-01-01T00:00:00.000Z', installerVersion: '0.1.0', newId: () => `ev${++n}` };
};
const target = (agent: string, skillRoot: string, nativeEnablement = false): TargetSpec => ({ agent, scope: 'project', projectRoot: '/p', skillRoot, nativeEnablement });
const CURSOR = target('cursor', '/p/.agents/skills');
const CODEX = target('codex', '/p/.agents/skills');
const WINDSURF = target('windsurf', '/p/.windsurf/skills');

const prepared = (bundle = 'a', skills = ['review', 'summarize'], id = 'acme/kit'): PreparedRelease => ({
  skitId: id,
  provisional: id.startsWith('provisional/'),
  release: {},
  bundleHash: H(bundle),
  skills: skills.map((name, i) => ({ name, id: `${id}:${name}`, hash: H(String(i + 1)), path: `skills/${name}`, defaultEnabled: true })),
  source: { kind: 'local-dir', canonical: '/src/kit', fingerprint: 'f'.repeat(64) },
});
const none: Observations = { paths: {} };
const installInput = (over: Partial<InstallInput> = {}): InstallInput => ({
  op: 'install', prepared: prepared(), scope: 'project', projectRoot: '/p', targets: [WINDSURF], nativeAgents: [], force: false, ...over,
});
/** The record a first install of `prep` for `targets` leaves (adapters reporting symlinks). */
const installed = (targets: TargetSpec[], prep = prepared()): InstallationRecord => planInstall({ installations: [], observations: none }, installInput({ targets, prepared: prep }), env()).after!;

const rejectsWith = (code: string, fn: () => unknown, pattern?: RegExp) =>
  assert.throws(fn, (e: unknown) => isSfError(e) && e.code === code && (!pattern || pattern.test(e.message)));

describe('core/install planners (pure)', () => {
  it('plans a fresh install: store, one projection per target, one inventory event per agent', () => {
    const plan = planInstall({ installations: [], observations: none }, installInput({ targets: [WINDSURF, CURSOR] }), env());
    assert.deepEqual(plan.steps.map((s) => s.kind), ['store', 'project', 'project']);
    assert.deepEqual(plan.events.map((e) => [e.action, e.agent]), [['installed', 'windsurf'], ['installed', 'cursor']]);
    assert.equal(plan.before, null);
    const after = plan.after!;
    assert.deepEqual(after.targets.map((t) => t.paths.map((p) => p.path)), [
      ['/p/.windsurf/skills/review', '/p/.windsurf/skills/summarize'],
      ['/p/.agents/skills/review', '/p/.agents/skills/summarize'],
    ]);
    const project = plan.steps[1];
    assert.ok(project.kind === 'project');
    assert.equal(project.request.skills[0].sourceDir, `/sf/store/${'a'.repeat(64)}/skills/review`);
  });

  it('refuses a skill directory Forge does not own, and one another SKIT owns', () => {
    const foreign: Observations = { paths: { '/p/.windsurf/skills/review': { kind: 'dir' } } };
    rejectsWith('SF_E_NAME_COLLISION', () => planInstall({ installations: [], observations: foreign }, installInput(), env()), /not installed by Forge/);
    const other = installed([WINDSURF], prepared('b', ['review'], 'other/kit'));
    rejectsWith('SF_E_NAME_COLLISION', () => planInstall({ installations: [other], observations: none }, installInput(), env()), /belongs to other\/kit/);
    // a dangling link into Forge's own store (e.g. after the library was deleted) may be replaced
    const stale: Observations = { paths: { '/p/.windsurf/skills/review': { kind: 'symlink', intoStore: true } } };
    assert.equal(planInstall({ installations: [], observations: stale }, installInput(), env()).steps.length, 2);
  });

  it('reinstalling the same bundle does nothing; adding a target projects only that target', () => {
    const before = installed([WINDSURF]);
    const same = planInstall({ installations: [before], observations: none }, installInput(), env());
    assert.deepEqual(same.steps, []);
    assert.match(same.notes.join(), /already installed/);
    const more = planInstall({ installations: [before], observations: none }, installInput({ targets: [CURSOR] }), env());
    assert.deepEqual(more.steps.map((s) => (s.kind === 'project' ? s.target.agent : s.kind)), ['store', 'cursor']);
    assert.deepEqual(more.after!.targets.map((t) => t.agent), ['windsurf', 'cursor']);
  });

  it('an update refuses to overwrite locally modified files and names them, unless forced', () => {
    const before = installed([WINDSURF]);
    const edited: Observations = { paths: { '/p/.windsurf/skills/review': { kind: 'symlink', intoStore: true, localChanges: ['SKILL.md', 'notes.md'] } } };
    const input = installInput({ op: 'update', prepared: prepared('b'), targets: [], replaces: 'acme/kit' });
    assert.throws(
      () => planInstall({ installations: [before], observations: edited }, input, env()),
      (e: unknown) => isSfError(e, 'SF_E_MODIFIED') && e.message.includes('/p/.windsurf/skills/review/SKILL.md') && e.message.includes('notes.md'),
    );
    const forced = planInstall({ installations: [before], observations: edited }, { ...input, force: true }, env());
    assert.deepEqual(forced.events.map((e) => e.action), ['updated']);
    assert.deepEqual(forced.gcCandidates, [H('a')]);
  });

  it("an update never projects over an entry the user put in Forge's place, forced or not, and does not call it modified (D1, D5)", () => {
    const before = installed([WINDSURF]);
    const theirs: Observations = { paths: { '/p/.windsurf/skills/review': { kind: 'dir', replaced: 'symlink' } } };
    const input = installInput({ op: 'update', prepared: prepared('b'), targets: [], replaces: 'acme/kit' });
    for (const force of [false, true]) {
      rejectsWith('SF_E_NAME_COLLISION', () => planInstall({ installations: [before], observations: theirs }, { ...input, force }, env()), /^cannot update acme\/kit: \/p\/.windsurf\/skills\/review is not what Forge installed for acme\/kit:review \(a directory replaced the symlink\)$/);
    }
  });

  it('an update that drops a skill whose entry the user replaced leaves that entry and says so', () => {
    const before = installed([WINDSURF]);
    const theirs: Observations = { paths: { '/p/.windsurf/skills/review': { kind: 'symlink', intoStore: false, replaced: 'symlink' } } };
    const plan = planInstall({ installations: [before], observations: theirs }, installInput({ op: 'update', prepared: prepared('b', ['summarize']), targets: [], replaces: 'acme/kit' }), env());
    assert.deepEqual(plan.steps.map((s) => s.kind), ['store', 'project'], 'nothing to unproject');
    assert.deepEqual(plan.notes, ['left /p/.windsurf/skills/review in place: it is not what Forge installed for acme/kit:review (a link out of the Forge store replaced the symlink)']);
  });

  it('an update whose source now has another provisional id keeps the id for the SKIT and for its skills', () => {
    const before = installed([WINDSURF], prepared('a', ['review'], 'provisional/0123456789abcdef'));
    const plan = planInstall({ installations: [before], observations: none }, installInput({ op: 'update', prepared: prepared('b', ['review'], 'provisional/fedcba9876543210'), targets: [], replaces: before.skitId }), env());
    const after = plan.after!;
    assert.equal(after.skitId, 'provisional/0123456789abcdef');
    assert.deepEqual(after.aliases, ['provisional/fedcba9876543210']);
    assert.deepEqual(after.skills.map((k) => k.id), ['provisional/0123456789abcdef:review'], 'a skill id names the SKIT id the record keeps');
    assert.deepEqual(after.targets[0].paths.map((p) => p.skillId), ['provisional/0123456789abcdef:review']);
  });

  it('an update that drops a skill unprojects exactly that skill', () => {
    const before = installed([WINDSURF]);
    const plan = planInstall({ installations: [before], observations: none }, installInput({ op: 'update', prepared: prepared('b', ['review']), targets: [], replaces: 'acme/kit' }), env());
    const unproject = plan.steps.find((s) => s.kind === 'unproject');
    assert.ok(unproject && unproject.kind === 'unproject');
    assert.deepEqual(unproject.record.paths.map((p) => p.path), ['/p/.windsurf/skills/summarize']);
    assert.equal(plan.events[0].skills[0].previous_hash, undefined);
  });

  it('keeps a provisional id and records the new id as an explicit alias', () => {
    const prov = installed([WINDSURF], prepared('a', ['review'], 'provisional/0123456789abcdef'));
    const plan = planInstall({ installations: [prov], observations: none }, installInput({ prepared: prepared('b', ['review'], 'acme/kit') }), env());
    assert.equal(plan.after!.skitId, 'provisional/0123456789abcdef');
    assert.deepEqual(plan.after!.aliases, ['acme/kit']);
    assert.match(plan.notes.join(), /alias/);
  });

  it('refuses an --alias that is not an owner/name id, control characters included, and records one that is (D10)', () => {
    for (const alias of ['x\u001b[31m/y', 'not an id at all', 'Acme/Kit', 'acme', '']) {
      rejectsWith('SF_E_USAGE', () => planInstall({ installations: [], observations: none }, installInput({ alias }), env()), /--alias ".*" is not a SKIT id/);
    }
    const plan = planInstall({ installations: [], observations: none }, installInput({ alias: 'acme/other-name' }), env());
    assert.deepEqual(plan.after!.aliases, ['acme/other-name']);
  });

  it('the same tree from another directory is another source: refused unless forced, then that is all it says (D18, D5)', () => {
    const before = installed([WINDSURF]);
    const moved = prepared();
    moved.source = { ...moved.source, canonical: '/src/copy-of-kit' };
    rejectsWith('SF_E_CONFLICT', () => planInstall({ installations: [before], observations: none }, installInput({ prepared: moved }), env()), /says it is acme\/kit, which is installed here from another source, \/src\/kit/);
    const plan = planInstall({ installations: [before], observations: none }, installInput({ prepared: moved, force: true }), env());
    assert.deepEqual(plan.steps, []);
    assert.equal(plan.after!.source.canonical, '/src/copy-of-kit');
    assert.deepEqual(plan.notes, ['acme/kit: its source changed from /src/kit (local directory) to /src/copy-of-kit (local directory); no skill was removed']);
    const again = planInstall({ installations: [before], observations: none }, installInput(), env());
    assert.deepEqual(again.notes, ['acme/kit is already installed and up to date']);
  });

  it('remove keeps a path another target still records, and records an uninstall intervention', () => {
    const before = installed([CURSOR, CODEX]);
    const plan = planRemove({ installations: [before], observations: none }, { skitId: 'acme/kit', scopeKey: 'project:/p', agents: ['cursor'], nativeAgents: [], force: false }, env());
    const step = plan.steps[0];
    assert.ok(step.kind === 'unproject');
    assert.deepEqual(step.record.paths, []);
    assert.deepEqual(plan.after!.targets.map((t) => t.agent), ['codex']);
    assert.equal(plan.events[0].intervention?.type, 'uninstall_skill');
    const all = planRemove({ installations: [before], observations: none }, { skitId: 'acme/kit', scopeKey: 'project:/p', nativeAgents: [], force: false }, env());
    assert.equal(all.after, null);
    assert.deepEqual(all.gcCandidates, [H('a')]);
    rejectsWith('SF_E_NOT_INSTALLED', () => planRemove({ installations: [before], observations: none }, { skitId: 'acme/nope', scopeKey: 'project:/p', nativeAgents: [], force: false }, env()));
  });

  it("remove leaves an entry the user put in Forge's place without --force, and names it once (D5)", () => {
    const before = installed([CURSOR, CODEX]);
    const theirs: Observations = { paths: { '/p/.agents/skills/review': { kind: 'dir', replaced: 'symlink' } } };
    const plan = planRemove({ installations: [before], observations: theirs }, { skitId: 'acme/kit', scopeKey: 'project:/p', nativeAgents: [], force: false }, env());
    assert.deepEqual(plan.steps.map((s) => (s.kind === 'unproject' ? s.record.paths.map((p) => p.path) : [])), [['/p/.agents/skills/summarize'], ['/p/.agents/skills/summarize']]);
    assert.deepEqual(plan.notes, ['left /p/.agents/skills/review in place: it is not what Forge installed for acme/kit:review (a directory replaced the symlink)']);
    assert.equal(plan.after, null);
  });

  it('disabling a skill that is already off for every agent changes nothing, not even the overrides', () => {
    const before = { ...installed([CURSOR]), enablement: { review: { '*': false } } };
    const plan = planEnablement({ installations: [before], observations: none }, { skitId: 'acme/kit', skill: 'review', enabled: false, scopeKey: 'project:/p', agents: ['cursor'], nativeAgents: [], force: false }, env());
    assert.deepEqual(plan.steps, []);
    assert.equal(plan.after, before);
    assert.match(plan.notes.join(), /already disabled for cursor/);
  });

  it('disabling for one of two agents sharing a skill root fails safely; for both it plans both', () => {
    const before = installed([CURSOR, CODEX]);
    const base = { skitId: 'acme/kit', skill: 'review', enabled: false, scopeKey: 'project:/p', nativeAgents: [], force: false };
    rejectsWith('SF_E_CONFLICT', () => planEnablement({ installations: [before], observations: none }, { ...base, agents: ['cursor'] }, env()), /share the skill directory/);
    const both = planEnablement({ installations: [before], observations: none }, base, env());
    assert.deepEqual(both.steps.map((s) => s.kind), ['enablement', 'enablement']);
    assert.deepEqual(both.after!.enablement, { review: { '*': false } });
    assert.deepEqual(both.events.map((e) => [e.action, e.intervention?.type, e.skills.map((s) => s.id)]), [
      ['disabled', 'disable_skill', ['acme/kit:review']],
      ['disabled', 'disable_skill', ['acme/kit:review']],
    ]);
  });

  it('a host that keeps disabled skills projected shares a root with one that must not see them only where they agree', () => {
    const native = target('claude-code', '/p/.agents/skills', true);
    const before = installed([CURSOR, native]);
    const base = { skitId: 'acme/kit', skill: 'review', enabled: false, scopeKey: 'project:/p', nativeAgents: ['claude-code'], force: false };
    // off for cursor only: the native host still needs the directory, which cursor must not see
    rejectsWith('SF_E_CONFLICT', () => planEnablement({ installations: [before], observations: none }, { ...base, agents: ['cursor'] }, env()), /exposed to cursor/);
    // off for both: the directory goes, and the native host is not asked for the skill at all
    const both = planEnablement({ installations: [before], observations: none }, base, env());
    const nativeStep = both.steps.find((s) => s.kind === 'enablement' && s.target.agent === 'claude-code');
    assert.ok(nativeStep && nativeStep.kind === 'enablement');
    assert.ok(!nativeStep.request.skills.some((s) => s.name === 'review'), 'not projected for the native host either');
    // off for the native host only: switched off in place, the directory stays for cursor
    const nativeOnly = planEnablement({ installations: [before], observations: none }, { ...base, agents: ['claude-code'] }, env());
    assert.ok(nativeOnly.steps.every((s) => s.kind !== 'enablement' || s.request.skills.some((k) => k.name === 'review' && !k.enabled)));
  });

  describe('skill roots that are one directory through a symbolic link (D2)', () => {
    let dir: Awaited<ReturnType<typeof tempDir>>;
    let claude: TargetSpec;
    let cursor: TargetSpec;
    beforeEach(async () => {
      dir = await tempDir('sf-plan-alias-');
      const p = dir.path;
      await mkdir(join(p, '.claude', 'skills'), { recursive: true });
      await mkdir(join(p, '.agents'));
      await symlink('../.claude/skills', join(p, '.agents', 'skills'));
      claude = { agent: 'claude-code', scope: 'project', projectRoot: p, skillRoot: join(p, '.claude', 'skills'), nativeEnablement: true };
      cursor = { agent: 'cursor', scope: 'project', projectRoot: p, skillRoot: join(p, '.agents', 'skills'), nativeEnablement: false };
    });
    afterEach(() => dir.cleanup());
    const scopeKey = () => `project:${dir.path}`;
    const record = () => planInstall({ installations: [], observations: none }, installInput({ projectRoot: dir.path, targets: [claude, cursor] }), env()).after!;

    it('disabling for the agent that must not see it fails with SF_E_CONFLICT that names the link; for both it is gone for both', () => {
      const before = record();
      const base = { skitId: 'acme/kit', skill: 'review', enabled: false, scopeKey: scopeKey(), nativeAgents: ['claude-code'], force: false };
      rejectsWith('SF_E_CONFLICT', () => planEnablement({ installations: [before], observations: none }, { ...base, agents: ['cursor'] }, env()), /leads there through a symbolic link.*exposed to cursor/);
      const both = planEnablement({ installations: [before], observations: none }, base, env());
      const nativeStep = both.steps.find((s) => s.kind === 'enablement' && s.target.agent === 'claude-code');
      assert.ok(nativeStep && nativeStep.kind === 'enablement');
      assert.ok(!nativeStep.request.skills.some((s) => s.name === 'review'), 'the native host is not asked for a skill the other agent must not see');
    });

    it('removing one agent keeps every entry the other still records under its own name', () => {
      const before = record();
      const plan = planRemove({ installations: [before], observations: none }, { skitId: 'acme/kit', scopeKey: scopeKey(), agents: ['cursor'], nativeAgents: ['claude-code'], force: false }, env());
      const step = plan.steps.find((s) => s.kind === 'unproject');
      assert.ok(step && step.kind === 'unproject');
      assert.deepEqual(step.record.paths, []);
    });
  });

  it('enabling a disabled skill refuses a foreign directory at its path', () => {
    const before = installed([WINDSURF]);
    const off = planEnablement({ installations: [before], observations: none }, { skitId: 'acme/kit', skill: 'review', enabled: false, scopeKey: 'project:/p', nativeAgents: [], force: false }, env()).after!;
    const disabled = { ...off, targets: off.targets.map((t) => ({ ...t, paths: t.paths.filter((p) => !p.path.endsWith('/review')) })) };
    const foreign: Observations = { paths: { '/p/.windsurf/skills/review': { kind: 'dir' } } };
    rejectsWith('SF_E_NAME_COLLISION', () =>
      planEnablement({ installations: [disabled], observations: foreign }, { skitId: 'acme/kit', skill: 'review', enabled: true, scopeKey: 'project:/p', nativeAgents: [], force: false }, env()),
    );
  });
});
