import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin, writeTree } from '../../test-support/index.js';
import { installSandbox, realAdapters, skillMarkdown, type InstallSandbox } from '../../test-support/skit-install.js';
import { sessionFrom } from './context.js';
import { updateSkits, type UpdateOutcome } from './update-op.js';

/**
 * Mutations read only the installations they need. `sf skit update --all` reads the library once
 * per pass (and once to choose the SKITs) and keeps what it read current after each SKIT's commit,
 * instead of reading (and indexing) every installation again for every SKIT, so the pass stays
 * linear in the number of SKITs; `sf skit disable` reads only its own record. What is kept must
 * stay right: a later SKIT of the pass sees the earlier ones' commits, and a change another sf
 * process makes in the middle of the pass is read fresh. Real CLI and real library; the count of
 * full reads comes from SF_TRACE_STARTUP.
 */

const AGENTS = 'windsurf,cline';

/** A SKIT acme/k<i> with the given skills, `rev` in its README (a new rev is a new release). */
const kit = (i: number, skills: string[], rev = 0) => {
  const entries = skills.map((s) => `  - name: ${s}\n    path: skills/${s}\n`).join('');
  const tree: Record<string, string> = { 'README.md': `---\nskit: 1\nid: acme/k${i}\nskills:\n${entries}---\n\n# k${i} rev ${rev}\n` };
  for (const s of skills) tree[`skills/${s}/SKILL.md`] = skillMarkdown(s);
  return tree;
};
const kitDir = (sb: InstallSandbox, i: number) => join(sb.root, `k${i}`);
const skillsOf = (i: number) => [`k${i}-a`, `k${i}-b`];

async function addKits(sb: InstallSandbox, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await writeTree(kitDir(sb, i), kit(i, skillsOf(i)));
    const r = await sb.sf(['add', 'skit', kitDir(sb, i), '--agent', AGENTS, '--yes']);
    assert.equal(r.code, 0, r.stderr);
  }
}

/**
 * How many times the command read every installation of the library. A pass reads twice, however
 * many SKITs it updates: once to choose them (read-only, like \`sf skit list\`), once under its
 * first claim; each commit then keeps what it read current.
 */
const fullReads = (stderr: string) => stderr.split('\n').filter((l) => /\[sf trace\].*library read: \d+ installations/.test(l)).length;

describe('sf skit update --all: a constant number of library reads per pass', function () {
  this.timeout(120_000);
  let sb: InstallSandbox;
  beforeEach(async () => {
    sb = await installSandbox('sf-update-pass-');
    await addKits(sb, 4);
  });
  afterEach(() => sb.cleanup());

  it('reads the library twice for 4 SKITs (not once per SKIT), whether nothing or every SKIT changed, and updates every SKIT', async () => {
    const idle = await sb.sf(['skit', 'update', '--all'], { env: { SF_TRACE_STARTUP: '1' } });
    assert.equal(idle.code, 0, idle.stderr);
    assert.equal(fullReads(idle.stderr), 2, idle.stderr);

    for (let i = 0; i < 4; i++) await writeTree(kitDir(sb, i), kit(i, skillsOf(i), 1));
    const before = await sb.list();
    const all = await sb.sf(['skit', 'update', '--all'], { env: { SF_TRACE_STARTUP: '1' } });
    assert.equal(all.code, 0, all.stderr);
    assert.equal(fullReads(all.stderr), 2, all.stderr);
    const after = await sb.list();
    assert.equal(after.length, 4);
    for (const rec of after) assert.notEqual(rec.bundleHash, before.find((b) => b.skitId === rec.skitId)!.bundleHash, `${rec.skitId} was updated`);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.deepEqual((JSON.parse(doctor.stdout) as { findings: unknown[] }).findings, []);
  });
});

describe('sf skit update --all keeps what it read right', function () {
  this.timeout(120_000);
  let sb: InstallSandbox;
  beforeEach(async () => {
    sb = await installSandbox('sf-update-pass-');
    await addKits(sb, 3);
  });
  afterEach(() => sb.cleanup());

  /** Runs the pass in this process; `between(id)` runs when the pass starts on SKIT `id`, before it claims the library. */
  async function pass(between: (skitId: string) => void = () => undefined, ids: string[] | 'all' = 'all'): Promise<UpdateOutcome[]> {
    const progress = (m: string) => {
      const at = /^updating (\S+)$/.exec(m);
      if (at) between(at[1]);
    };
    const session = sessionFrom(sb.env, sb.project, realAdapters(), progress);
    return updateSkits(session, { ids });
  }
  /** Another sf process, run to its end. */
  const otherSf = (args: string[]) => execFileSync(process.execPath, [sfBin, ...args], { cwd: sb.project, env: sb.env, stdio: 'pipe' });
  const codes = (outcomes: UpdateOutcome[]) => Object.fromEntries(outcomes.map((o) => [o.skitId, o.skipped ? 'skipped' : o.error?.code ?? (o.result?.changed ? 'changed' : 'same')]));

  it('a later SKIT sees what an earlier one of the same pass committed: two new skills of one name collide', async () => {
    await writeTree(kitDir(sb, 0), kit(0, [...skillsOf(0), 'shared-x'], 1));
    await writeTree(kitDir(sb, 2), kit(2, [...skillsOf(2), 'shared-x'], 1));
    const outcomes = await pass();
    assert.deepEqual(codes(outcomes), { 'acme/k0': 'changed', 'acme/k1': 'same', 'acme/k2': 'SF_E_NAME_COLLISION' });
    assert.match(outcomes[2].error!.message, /shared-x belongs to acme\/k0/);
    assert.match(await readlink(join(sb.project, '.windsurf/skills/shared-x')), /store/);
  });

  it('a SKIT another sf process removed during a pass over the scope is skipped with a note, not failed, and not put back', async () => {
    await writeTree(kitDir(sb, 2), kit(2, skillsOf(2), 1));
    const outcomes = await pass((id) => {
      if (id === 'acme/k2') otherSf(['skit', 'remove', 'acme/k2']);
    });
    assert.deepEqual(codes(outcomes), { 'acme/k0': 'same', 'acme/k1': 'same', 'acme/k2': 'skipped' });
    assert.match(outcomes[2].skipped!, /^acme\/k2 was removed in project \S+ by another command during the update; skipped$/);
    assert.deepEqual((await sb.list()).map((r) => r.skitId).sort(), ['acme/k0', 'acme/k1']);
  });

  it('a SKIT named by its id that another sf process removed meanwhile is still reported as not installed', async () => {
    await writeTree(kitDir(sb, 2), kit(2, skillsOf(2), 1));
    const outcomes = await pass((id) => {
      if (id === 'acme/k2') otherSf(['skit', 'remove', 'acme/k2']);
    }, ['acme/k2']);
    assert.deepEqual(codes(outcomes), { 'acme/k2': 'SF_E_NOT_INSTALLED' });
  });

  it('a skill another sf process installed during the pass stops a later SKIT that would take its name', async () => {
    await writeTree(join(sb.root, 'other'), kit(9, ['shared-y']));
    await writeTree(kitDir(sb, 2), kit(2, [...skillsOf(2), 'shared-y'], 1));
    const outcomes = await pass((id) => {
      if (id === 'acme/k1') otherSf(['add', 'skit', join(sb.root, 'other'), '--agent', AGENTS, '--yes']);
    });
    assert.deepEqual(codes(outcomes), { 'acme/k0': 'same', 'acme/k1': 'same', 'acme/k2': 'SF_E_NAME_COLLISION' });
    assert.match(outcomes[2].error!.message, /shared-y belongs to acme\/k9/);
  });
});

describe('sf skit disable reads only the record it changes', function () {
  this.timeout(120_000);
  let sb: InstallSandbox;
  before(async () => {
    sb = await installSandbox('sf-disable-reads-');
    await addKits(sb, 3);
    const alias = await sb.sf(['add', 'skit', kitDir(sb, 0), '--alias', 'acme/zero', '--agent', AGENTS, '--yes']);
    assert.equal(alias.code, 0, alias.stderr);
  });
  after(() => sb.cleanup());
  const traced = (args: string[]) => sb.sf(args, { env: { SF_TRACE_STARTUP: '1' } });
  const enabledFor = async (skitId: string, skill: string) => (await sb.list()).find((r) => r.skitId === skitId)!.enabled[`${skitId}:${skill}`].windsurf;

  it('disabling by id reads no other installation; enabling (which checks names) and an alias read them all', async () => {
    const off = await traced(['skit', 'disable', 'acme/k1:k1-a']);
    assert.equal(off.code, 0, off.stderr);
    assert.equal(fullReads(off.stderr), 0, off.stderr);
    assert.equal(await enabledFor('acme/k1', 'k1-a'), false);
    const on = await traced(['skit', 'enable', 'acme/k1:k1-a']);
    assert.equal(on.code, 0, on.stderr);
    assert.equal(fullReads(on.stderr), 1, on.stderr);
    assert.equal(await enabledFor('acme/k1', 'k1-a'), true);
    const byAlias = await traced(['skit', 'disable', 'acme/zero:k0-b']);
    assert.equal(byAlias.code, 0, byAlias.stderr);
    assert.equal(fullReads(byAlias.stderr), 1, byAlias.stderr);
    assert.equal(await enabledFor('acme/k0', 'k0-b'), false);
  });

  it('a SKIT that is not installed in this scope is still named where it is', async () => {
    const r = await traced(['skit', 'disable', 'acme/k1:k1-a', '--scope', 'user']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /acme\/k1 is not installed for the user \(global\)/);
    assert.match(r.stderr, /it is installed in project /);
  });
});
