import { strict as assert } from 'node:assert';
import { isSfError } from '../errors/index.js';
import type { InstallationRecord, SourceRecord } from '../library/types.js';
import { hubRange, sourceOrigin } from '../sources/origin.js';
import { planEnablement } from './plan-enablement.js';
import { planInstall, type InstallInput } from './plan-install.js';
import { downgradeOf } from './plan-notes.js';
import type { Observations, PlanEnv, PreparedRelease, TargetSpec } from './plan-types.js';

/** The planners over an installation's life: sources that change, defaults that flip, hub ranges, edits. */

const H = (c: string) => `sha256:${c.repeat(64)}`;
const env = (): PlanEnv => {
  let n = 0;
  return { storeRoot: '/sf/store', now: '2026-01-01T00:00:00.000Z', installerVersion: '0.1.0', newId: () => `ev${++n}` };
};
const CLAUDE: TargetSpec = { agent: 'claude-code', scope: 'project', projectRoot: '/p', skillRoot: '/p/.claude/skills', nativeEnablement: true };
const WINDSURF: TargetSpec = { agent: 'windsurf', scope: 'project', projectRoot: '/p', skillRoot: '/p/.windsurf/skills', nativeEnablement: false };
const none: Observations = { paths: {} };
const GIT: SourceRecord = { kind: 'git', canonical: 'file:///repos/kit#v1', fingerprint: 'a'.repeat(64), ref: 'v1' };
/** A hub source as the resolver reports it for `version`, following `range` (none: a record written before ranges). */
const HUB = (version: string, range?: string): SourceRecord => ({
  kind: 'hub',
  canonical: 'http://hub.test/s/acme/kit',
  fingerprint: 'b'.repeat(64),
  ref: version,
  ...(range ? { range } : {}),
});

interface Spec {
  bundle?: string;
  skills?: string[];
  /** skill -> default_enabled (default true) */
  defaults?: Record<string, boolean>;
  /** skill -> content hash letter (default: by position) */
  hashes?: Record<string, string>;
  source?: SourceRecord;
  release?: PreparedRelease['release'];
  /** hub: the newer release beyond the range the resolver followed */
  newer?: string;
}
const prepared = (s: Spec = {}): PreparedRelease => ({
  skitId: 'acme/kit',
  provisional: false,
  release: s.release ?? {},
  bundleHash: H(s.bundle ?? 'a'),
  skills: (s.skills ?? ['review', 'summarize']).map((name, i) => ({
    name,
    id: `acme/kit:${name}`,
    hash: H(s.hashes?.[name] ?? String(i + 1)),
    path: `skills/${name}`,
    defaultEnabled: s.defaults?.[name] ?? true,
  })),
  source: s.source ?? GIT,
  ...(s.newer ? { newer: s.newer } : {}),
});
const input = (over: Partial<InstallInput> = {}): InstallInput => ({
  op: 'install', prepared: prepared(), scope: 'project', projectRoot: '/p', targets: [WINDSURF], nativeAgents: ['claude-code'], force: false, ...over,
});
const installed = (spec: Spec = {}, targets = [WINDSURF]): InstallationRecord =>
  planInstall({ installations: [], observations: none }, input({ prepared: prepared(spec), targets }), env()).after!;
const update = (before: InstallationRecord, spec: Spec, over: Partial<InstallInput> = {}, observations = none) =>
  planInstall({ installations: [before], observations }, input({ op: 'update', prepared: prepared(spec), targets: [], replaces: before.skitId, ...over }), env());

describe('core/install planners over an installation\'s life (pure)', () => {
  describe('an id claimed by another source (D5)', () => {
    it('sf add skit of another place that claims an installed id is SF_E_CONFLICT naming both sources, with the ways on', () => {
      const before = installed();
      for (const source of [
        { kind: 'local-dir', canonical: '/home/u/other', fingerprint: 'c'.repeat(64) },
        HUB('1.0.0'),
        { ...GIT, canonical: 'file:///repos/fork#v1' },
        { ...GIT, canonical: 'file:///repos/kit#v1:sub', subpath: 'sub' },
      ]) {
        assert.throws(
          () => planInstall({ installations: [before], observations: none }, input({ prepared: prepared({ bundle: 'b', source }) }), env()),
          (e: unknown) =>
            isSfError(e, 'SF_E_CONFLICT') &&
            e.message === `${source.canonical} (${source.kind === 'hub' ? 'Forge hub' : source.kind === 'git' ? 'git' : 'local directory'}) says it is acme/kit, which is installed here from another source, file:///repos/kit#v1 (git)` &&
            e.hint!.includes(`sf skit update acme/kit --source ${source.canonical}`) &&
            e.hint!.includes('--force'),
          source.canonical,
        );
      }
      // a hub install replaced by a directory claiming its id: the same
      const hub = installed({ source: HUB('1.0.0', '^1.0.0'), release: { version: '1.0.0' } });
      assert.throws(() => planInstall({ installations: [hub], observations: none }, input({ prepared: prepared({ bundle: 'b' }) }), env()), (e: unknown) => isSfError(e, 'SF_E_CONFLICT'));
    });

    it('forced, the replacement says where it came from, where it comes from now and which skills went', () => {
      const before = installed();
      const other = { kind: 'local-dir', canonical: '/home/u/other', fingerprint: 'c'.repeat(64) };
      const plan = planInstall({ installations: [before], observations: none }, input({ prepared: prepared({ bundle: 'b', skills: ['xreview', 'summarize'], source: other }), force: true }), env());
      assert.equal(plan.after!.source.canonical, '/home/u/other');
      assert.ok(
        plan.notes.includes('acme/kit: its source changed from file:///repos/kit#v1 (git) to /home/u/other (local directory); removed acme/kit:review, which the new source does not have'),
        JSON.stringify(plan.notes),
      );
    });

    it('the same origin is no conflict: another ref of the repository, another version on the hub, another archive of the directory', () => {
      planInstall({ installations: [installed()], observations: none }, input({ prepared: prepared({ bundle: 'b', source: { ...GIT, canonical: 'file:///repos/kit#v2', ref: 'v2' } }) }), env());
      planInstall({ installations: [installed({ source: HUB('1.0.0', '^1.0.0') })], observations: none }, input({ prepared: prepared({ bundle: 'b', source: HUB('2.0.0', '^2.0.0') }) }), env());
      const archive = (name: string) => ({ kind: 'archive', canonical: `/releases/${name}`, fingerprint: 'd'.repeat(64) });
      planInstall({ installations: [installed({ source: archive('kit-1.0.tgz') })], observations: none }, input({ prepared: prepared({ bundle: 'b', source: archive('kit-1.1.tgz') }) }), env());
    });

    it('update --source moves an installation to another place on purpose: no conflict, the same note (D3)', () => {
      const before = installed();
      const moved = { kind: 'local-dir', canonical: '/home/u/kit', fingerprint: 'c'.repeat(64) };
      const plan = update(before, { source: moved }, { repoint: true });
      assert.match(plan.notes.join('\n'), /its source changed from file:\/\/\/repos\/kit#v1 \(git\) to \/home\/u\/kit \(local directory\); no skill was removed/);
      // another SKIT at the new place is refused, naming both ids
      const other = { ...prepared({ source: moved }), skitId: 'acme/other' };
      assert.throws(
        () => planInstall({ installations: [before], observations: none }, input({ op: 'update', prepared: other, targets: [], replaces: 'acme/kit', repoint: true }), env()),
        (e: unknown) => isSfError(e, 'SF_E_CONFLICT') && e.message === '/home/u/kit holds acme/other, not acme/kit',
      );
    });
  });

  describe('enable/disable choices and default_enabled (D10)', () => {
    it('an enable that matches the default is recorded as the user\'s choice, and an update that turns the default off keeps it on', () => {
      const before = installed();
      const plan = planEnablement({ installations: [before], observations: none }, { skitId: 'acme/kit', skill: 'review', enabled: true, scopeKey: 'project:/p', nativeAgents: [], force: false }, env());
      assert.deepEqual(plan.steps, []);
      assert.deepEqual(plan.after!.enablement, { review: { '*': true } });
      assert.match(plan.notes[0], /already enabled; recorded as your choice/);
      const after = update(plan.after!, { bundle: 'b', defaults: { review: false } });
      assert.equal(after.after!.enablement.review['*'], true);
      assert.ok(after.steps.some((s) => s.kind === 'project' && s.request.skills.find((k) => k.name === 'review')?.enabled === true));
      assert.ok(!after.notes.some((n) => /by default/.test(n)), JSON.stringify(after.notes));
      // the same choice again records nothing new
      const again = planEnablement({ installations: [plan.after!], observations: none }, { skitId: 'acme/kit', skill: 'review', enabled: true, scopeKey: 'project:/p', nativeAgents: [], force: false }, env());
      assert.equal(again.after, plan.after);
    });

    it('an update that turns a skill off or on through default_enabled says so, with the command that turns it back', () => {
      const off = update(installed(), { bundle: 'b', defaults: { review: false } });
      assert.ok(off.notes.includes('acme/kit:review is now off by default, so it was disabled; `sf skit enable acme/kit:review` turns it on again and keeps it so'), JSON.stringify(off.notes));
      const on = update(off.after!, { bundle: 'c', defaults: { review: true } });
      assert.ok(on.notes.includes('acme/kit:review is now on by default, so it was enabled; `sf skit disable acme/kit:review` turns it off again and keeps it so'), JSON.stringify(on.notes));
      // where a per-agent choice decides, only the other agents flip, and the note names them
      const two = { ...installed({}, [WINDSURF, CLAUDE]), enablement: { review: { windsurf: true } } };
      const some = update(two, { bundle: 'b', defaults: { review: false } });
      assert.ok(some.notes.some((n) => n.startsWith('acme/kit:review is now off by default, so it was disabled for claude-code; `sf skit enable acme/kit:review --agent claude-code`')), JSON.stringify(some.notes));
    });
  });

  describe('hub ranges, versions and downgrades (D8, O8)', () => {
    const hub = (version: string, range = `^${version}`, bundle = version) => ({ bundle, source: HUB(version, range), release: { version } });

    it('records the caret range; a move within it says nothing about ranges, one to another range says which range update follows now', () => {
      const first = installed(hub('1.0.0'));
      assert.equal(first.source.range, '^1.0.0');
      const stays = update(first, hub('1.0.0'));
      assert.deepEqual(stays.notes, ['acme/kit is up to date (1.0.0, range ^1.0.0)']);
      const minor = update(first, hub('1.1.0', '^1.0.0'));
      assert.equal(minor.after!.source.range, '^1.0.0');
      assert.ok(!minor.notes.some((n) => /range|major/.test(n)), JSON.stringify(minor.notes));
      const latest = update(first, hub('2.0.0'));
      assert.ok(latest.notes.includes('acme/kit follows ^2.0.0 now (>=2.0.0 <3.0.0): `sf skit update` takes its newest release in that range'), JSON.stringify(latest.notes));
      assert.ok(latest.notes.includes('acme/kit: 1.0.0 -> 2.0.0 is a new major version, which may change what its skills do; to go back: sf skit update acme/kit --version 1.0.0'), JSON.stringify(latest.notes));
      const zero = update(installed(hub('0.2.3')), hub('0.3.0'));
      assert.ok(zero.notes.some((n) => n.startsWith('acme/kit: 0.2.3 -> 0.3.0 is a new major version')), JSON.stringify(zero.notes));
    });

    it('says when a newer major version is beyond the range update followed, with the command that takes it', () => {
      const plan = update(installed(hub('1.0.0')), { ...hub('1.0.0'), newer: '2.0.0' });
      assert.ok(plan.notes.includes('acme/kit: 2.0.0 is available, a new major version beyond ^1.0.0 (which may change what its skills do), so `sf skit update` does not move to it; to take it: sf skit update acme/kit --version 2.0.0 (or --version latest)'), JSON.stringify(plan.notes));
    });

    it('a record written before ranges follows ^<its version>: the same release again is no change, the next one records the range', () => {
      const old = installed({ source: HUB('1.0.0'), release: { version: '1.0.0' }, bundle: '1.0.0' });
      assert.equal(old.source.range, undefined);
      assert.equal(hubRange(old.source, old.release), '^1.0.0');
      const same = update(old, hub('1.0.0'));
      assert.equal(same.steps.length, 0);
      assert.deepEqual(same.after!.source, old.source, 'nothing to write: the update stays unchanged');
      assert.deepEqual(same.notes, ['acme/kit is up to date (1.0.0, range ^1.0.0)']);
      const next = update(old, hub('1.1.0', '^1.0.0'));
      assert.equal(next.after!.source.range, '^1.0.0');
      assert.ok(!next.notes.some((n) => /range|major/.test(n)), JSON.stringify(next.notes));
    });

    it('an update with nothing to do says so in its own words; an install in the words of install', () => {
      const before = installed({ release: { ref: 'v1', commit: 'c'.repeat(40) } });
      assert.deepEqual(update(before, { release: { ref: 'v1', commit: 'c'.repeat(40) } }).notes, [`acme/kit is up to date (v1@${'c'.repeat(12)})`]);
      const again = planInstall({ installations: [before], observations: none }, input({ prepared: prepared({ release: { ref: 'v1', commit: 'c'.repeat(40) } }) }), env());
      assert.deepEqual(again.notes, ['acme/kit is already installed and up to date']);
    });

    it('a move to an older version or version-like tag is a downgrade; branches and commits are not compared', () => {
      assert.deepEqual(downgradeOf({ version: '2.0.0' }, { version: '1.0.1' }), { from: '2.0.0', to: '1.0.1' });
      assert.equal(downgradeOf({ version: '1.0.1' }, { version: '2.0.0' }), undefined);
      assert.deepEqual(downgradeOf({ ref: 'v2' }, { ref: 'v1' }), { from: 'v2', to: 'v1' });
      assert.deepEqual(downgradeOf({ ref: 'v1.10' }, { ref: 'v1.9.3' }), { from: 'v1.10', to: 'v1.9.3' });
      assert.equal(downgradeOf({ ref: 'v1' }, { ref: 'v1.0.1' }), undefined);
      assert.equal(downgradeOf({ ref: 'main' }, { ref: 'dev' }), undefined);
      const before = installed({ source: HUB('2.0.0', '^2.0.0'), release: { version: '2.0.0' } });
      const down = update(before, { bundle: 'b', source: HUB('1.0.1', '^1.0.1'), release: { version: '1.0.1' } });
      assert.deepEqual(down.downgrade, { from: '2.0.0', to: '1.0.1' });
      assert.ok(down.notes.includes('acme/kit follows ^1.0.1 now (>=1.0.1 <2.0.0): `sf skit update` takes its newest release in that range'), JSON.stringify(down.notes));
      assert.ok(!down.notes.some((n) => /new major/.test(n)), JSON.stringify(down.notes));
      assert.equal(update(before, { bundle: 'b', source: HUB('2.1.0', '^2.0.0'), release: { version: '2.1.0' } }).downgrade, undefined);
    });

    it('a hub source follows its recorded range, else ^<its version>; its origin is the SKIT, whatever the release or range', () => {
      assert.equal(hubRange(HUB('1.1.0', '^1.0.0'), { version: '1.1.0' }), '^1.0.0');
      assert.equal(hubRange(HUB('1.1.0'), { version: '1.1.0' }), '^1.1.0');
      assert.equal(hubRange(GIT, {}), undefined);
      assert.equal(sourceOrigin(HUB('1.0.0', '^1.0.0')), sourceOrigin(HUB('2.0.0', '^2.0.0')));
      assert.equal(sourceOrigin(GIT), sourceOrigin({ ...GIT, canonical: 'file:///repos/kit#main' }));
      assert.notEqual(sourceOrigin(GIT), sourceOrigin({ ...GIT, canonical: 'file:///repos/kit#v1:sub', subpath: 'sub' }));
      assert.equal(sourceOrigin({ kind: 'local-dir', canonical: '/k' }), sourceOrigin({ kind: 'local-skill', canonical: '/k' }));
      assert.equal(sourceOrigin({ kind: 'archive', canonical: 'https://x.test/rel/kit-1.tgz?s=1' }), sourceOrigin({ kind: 'archive', canonical: 'https://x.test/rel/kit-2.tgz' }));
      assert.notEqual(sourceOrigin({ kind: 'archive', canonical: 'https://x.test/rel/kit-1.tgz' }), sourceOrigin({ kind: 'archive', canonical: 'https://y.test/rel/kit-1.tgz' }));
    });
  });

  describe('edited copies (O3, O5)', () => {
    const copyOf = (before: InstallationRecord): InstallationRecord => ({ ...before, targets: before.targets.map((t) => ({ ...t, paths: t.paths.map((p) => ({ ...p, mode: 'copy' as const })) })) });
    const edited = (path: string, files = ['SKILL.md']): Observations => ({ paths: { [path]: { kind: 'dir', localChanges: files } } });

    it('an update leaves an edited copy of a skill it does not change in place, and says so, instead of refusing', () => {
      const before = copyOf(installed());
      // summarize keeps its hash (2), review changes
      const spec = { bundle: 'b', hashes: { review: '9', summarize: '2' } };
      const plan = update(before, spec, { keepEditedCopies: true }, edited('/p/.windsurf/skills/summarize'));
      const project = plan.steps.find((s) => s.kind === 'project');
      assert.ok(project && project.kind === 'project');
      assert.equal(project.request.skills.find((k) => k.name === 'summarize')!.sourceDir, '/p/.windsurf/skills/summarize', 'projected from itself: left as it is');
      assert.equal(project.request.skills.find((k) => k.name === 'review')!.sourceDir, `/sf/store/${'b'.repeat(64)}/skills/review`);
      assert.ok(plan.notes.includes('acme/kit:summarize (windsurf): kept your edited copy /p/.windsurf/skills/summarize; this release does not change the skill'), JSON.stringify(plan.notes));
      assert.equal(plan.overwrites, undefined);
      // an edited copy of a skill the release changes is still refused; where links are made, so is an unchanged one
      assert.throws(() => update(before, spec, { keepEditedCopies: true }, edited('/p/.windsurf/skills/review')), (e: unknown) => isSfError(e, 'SF_E_MODIFIED'));
      assert.throws(() => update(before, spec, { keepEditedCopies: false }, edited('/p/.windsurf/skills/summarize')), (e: unknown) => isSfError(e, 'SF_E_MODIFIED'));
    });

    it('a forced update lists the edited directories it replaces, once each, for the command to back up', () => {
      const before = copyOf(installed());
      const plan = update(before, { bundle: 'b', hashes: { review: '9' } }, { force: true }, edited('/p/.windsurf/skills/review', ['NOTES.md', 'SKILL.md']));
      assert.deepEqual(plan.overwrites, [{ agent: 'windsurf', skillId: 'acme/kit:review', path: '/p/.windsurf/skills/review', files: ['NOTES.md', 'SKILL.md'] }]);
      assert.equal(update(before, { bundle: 'b', hashes: { review: '9' } }, { force: true }).overwrites, undefined, 'nothing edited, nothing to back up');
    });
  });
});
