import { strict as assert } from 'node:assert';
import { appendFile, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, rootContents, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * A user's own skill directory that replaced one of Forge's projections (what the Vercel `skills`
 * CLI does when it installs a skill of the same name): it is theirs, so no sf command overwrites
 * or deletes it, none reports it as Forge's edited files, and it never blocks unrelated commands.
 */

interface Report {
  clean: boolean;
  findings: { code: string; agent?: string; fixed?: boolean; file?: string; message: string; hint?: string }[];
}

const ROOTS: Record<string, string> = { 'claude-code': '.claude/skills', cursor: '.agents/skills' };
const OWN = '---\nname: review\ndescription: The user own review skill.\n---\nUSER REVIEW BODY\n';

describe('sf next to a skill directory it does not own that replaced its projection', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  beforeEach(async () => {
    sb = await installSandbox('sf-foreign-');
  });
  afterEach(() => sb.cleanup());

  const root = (agent: string) => join(sb.project, ROOTS[agent]);
  const install = async (agents: string) => {
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', agents, '--yes']);
    assert.equal(r.code, 0, r.stderr);
  };
  /** Replaces Forge's `review` link with the user's own directory, as `skills add` does. */
  const replaceWithOwn = async (agent: string) => {
    const path = join(root(agent), 'review');
    await rm(path, { recursive: true, force: true });
    await mkdir(path);
    await writeFile(join(path, 'SKILL.md'), OWN);
  };
  const ownIntact = async (agent: string) => assert.equal(await readFile(join(root(agent), 'review', 'SKILL.md'), 'utf8'), OWN, `the user's ${agent} review is untouched`);
  const newRelease = () => appendFile(join(sb.source, 'skills', 'summarize', 'SKILL.md'), '- v2\n');
  const doctor = async (...args: string[]) => {
    const r = await sb.sf(['skit', 'doctor', '--json', ...args]);
    return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
  };
  /** `sf add skit` of an unrelated SKIT in an unrelated project, failing at once if the library is held. */
  const unrelatedInstall = async () => {
    const other = join(sb.root, 'other');
    const kit2 = join(sb.root, 'kit2');
    await mkdir(join(other, '.git'), { recursive: true });
    const tree = kitTree('k2', ['notes']);
    await writeTree(kit2, { ...tree, 'README.md': tree['README.md'].replace('id: acme/kit', 'id: acme/kit2') });
    return sb.sf(['add', 'skit', kit2, '--agent', 'opencode', '--yes'], { cwd: other, env: { SF_LIBRARY_WAIT: '0' } });
  };

  for (const agent of ['claude-code', 'cursor']) {
    it(`update --force stops while planning, changes nothing and blocks nothing else (${agent}, D1)`, async () => {
      await install(agent);
      const [was] = await sb.list();
      const before = await rootContents(root(agent));
      await replaceWithOwn(agent);
      await newRelease();

      const r = await sb.sf(['skit', 'update', '--all', '--force']);
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /SF_E_NAME_COLLISION/);
      assert.match(r.stderr, /review is not what Forge installed/);
      assert.doesNotMatch(r.stderr, /could not undo/);
      await ownIntact(agent);
      assert.deepEqual(await rootContents(root(agent)), { ...before, review: 'dir' }, 'the other skill still links to the old release');
      assert.equal((await sb.list())[0].bundleHash, was.bundleHash);
      const { report } = await doctor();
      const codes = report.findings.map((f) => f.code);
      assert.ok(!codes.includes('SF_DRIFT_INTERRUPTED') && !codes.includes('SF_DRIFT_STORE_UNREFERENCED'), codes.join());

      const fix = await doctor('--fix', '--force');
      assert.doesNotMatch(fix.stderr, /SF_E_NAME_COLLISION/);
      await ownIntact(agent);
      const other = await unrelatedInstall();
      assert.equal(other.code, 0, other.stderr);
    });
  }

  it('a crashed update whose links the user then replaced is undone by the next command, which leaves their directories (D1)', async () => {
    // cursor first: recovery replays its projection (a plain directory host) before Claude Code's
    await install('cursor,claude-code');
    const [was] = await sb.list();
    await newRelease();
    const crashed = await sb.sf(['skit', 'update', 'acme/kit'], { env: { SF_CRASH_AT: 'update:after-project' } });
    assert.equal(crashed.code, -1);
    await replaceWithOwn('claude-code');
    await replaceWithOwn('cursor');

    const other = await unrelatedInstall();
    assert.equal(other.code, 0, other.stderr);
    await ownIntact('claude-code');
    await ownIntact('cursor');
    const mine = (await sb.list()).find((r) => r.skitId === 'acme/kit')!;
    assert.equal(mine.bundleHash, was.bundleHash, 'rolled back to the old release');
    for (const agent of ['claude-code', 'cursor']) {
      assert.match((await rootContents(root(agent))).summarize, new RegExp(was.bundleHash.slice(7)), `${agent}: summarize links to the old release again`);
    }
    const codes = (await doctor()).report.findings.map((f) => f.code);
    assert.ok(!codes.includes('SF_DRIFT_INTERRUPTED'), codes.join());
  });

  it('update without --force names the replaced entry, not "modified" files; remove leaves it and says so (D5)', async () => {
    await install('claude-code');
    await replaceWithOwn('claude-code');
    await newRelease();
    const update = await sb.sf(['skit', 'update', 'acme/kit']);
    assert.equal(update.code, 4);
    assert.match(update.stderr, /SF_E_NAME_COLLISION.*review is not what Forge installed for acme\/kit:review \(a directory replaced the symlink\)/);
    assert.match(update.stderr, /error\[SF_E_NAME_COLLISION\]: cannot update acme\/kit:/, 'the SKIT is named once');
    assert.doesNotMatch(update.stderr, /SF_E_MODIFIED|guide\.md|pass --force/);

    const removed = await sb.sf(['skit', 'remove', 'acme/kit']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /left .*\.claude\/skills\/review in place: it is not what Forge installed/);
    await ownIntact('claude-code');
    assert.deepEqual(await rootContents(root('claude-code')), { review: 'dir' }, "Forge's summarize link is gone");
    assert.deepEqual(await sb.list(), []);
  });

  it('remove --json names the entries it left in place', async () => {
    await install('cursor');
    await replaceWithOwn('cursor');
    const r = await sb.sf(['skit', 'remove', 'acme/kit', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { action: string; notes?: string[] };
    assert.equal(out.action, 'removed');
    assert.equal(out.notes?.length, 1, r.stdout);
    assert.match(out.notes![0], /left .*\.agents\/skills\/review in place: it is not what Forge installed/);
    await ownIntact('cursor');
  });

  for (const agent of ['claude-code', 'cursor']) {
    it(`doctor's hint for a replaced entry says what happens, and --fix --force leaves it (${agent}, D6)`, async () => {
      await install(agent);
      await replaceWithOwn(agent);
      const { report } = await doctor();
      const foreign = report.findings.find((f) => f.code === 'SF_DRIFT_FOREIGN');
      assert.ok(foreign, JSON.stringify(report));
      assert.doesNotMatch(foreign.hint!, /to replace it/);
      assert.match(foreign.hint!, /move or rename it/);
      assert.match(foreign.hint!, /Forge never replaces it/);
      const fixed = await doctor('--fix', '--force');
      assert.equal(fixed.code, 1);
      assert.ok(!fixed.report.findings.find((f) => f.code === 'SF_DRIFT_FOREIGN')!.fixed);
      await ownIntact(agent);
    });
  }

  for (const agent of ['claude-code', 'cursor']) {
    it(`doctor --fix repairs the rest of a target whose one entry the user replaced, and leaves theirs (${agent})`, async () => {
      await install(agent);
      await replaceWithOwn(agent);
      await rm(join(root(agent), 'lint'));
      const fixed = await doctor('--fix');
      const missing = fixed.report.findings.find((f) => f.code === 'SF_DRIFT_MISSING');
      assert.ok(missing?.fixed, `the missing lint is put back although review is the user's: ${JSON.stringify(fixed.report)}`);
      assert.ok(!fixed.report.findings.some((f) => f.code === 'SF_DOCTOR_FIX_FAILED'), JSON.stringify(fixed.report));
      assert.deepEqual(Object.keys(await rootContents(root(agent))).sort(), ['lint', 'review', 'summarize']);
      await ownIntact(agent);
      const again = await doctor();
      assert.deepEqual(again.report.findings.map((f) => f.code), ['SF_DRIFT_FOREIGN'], 'only the user\'s entry is left to report');
      assert.equal(again.code, 1);
    });
  }

  for (const agent of ['claude-code', 'cursor']) {
    it(`disabling another skill goes ahead around the user's entry; disabling the replaced one is refused (${agent})`, async () => {
      await install(agent);
      await replaceWithOwn(agent);
      const r = await sb.sf(['skit', 'disable', 'acme/kit:summarize']);
      assert.equal(r.code, 0, r.stderr);
      await ownIntact(agent);
      const [record] = await sb.list();
      assert.deepEqual(record.enabled['acme/kit:summarize'], { [agent]: false });
      assert.ok(record.targets[0].paths.some((p) => p.skillId === 'acme/kit:review'), "the user's entry stays recorded as Forge's place");
      if (agent === 'cursor') assert.ok(!('summarize' in (await rootContents(root(agent)))), 'summarize is no longer projected for cursor');
      assert.deepEqual((await doctor()).report.findings.map((f) => f.code), ['SF_DRIFT_FOREIGN'], 'only the user\'s entry is reported');
      // a switch for review would reach the user's review (by name, or by a link in its place)
      const own = await sb.sf(['skit', 'disable', 'acme/kit:review']);
      assert.equal(own.code, 4, own.stderr);
      assert.match(own.stderr, /SF_E_NAME_COLLISION[\s\S]*move or rename your own "review"/);
      await ownIntact(agent);
      const enable = await sb.sf(['skit', 'enable', 'acme/kit:summarize']);
      assert.equal(enable.code, 0, enable.stderr);
      assert.deepEqual((await doctor()).report.findings.map((f) => f.code), ['SF_DRIFT_FOREIGN']);
    });
  }

  it("a user's own dangling link in Forge's place is FOREIGN, not Forge's dangling link (D7)", async () => {
    await install('claude-code');
    const path = join(root('claude-code'), 'review');
    await rm(path);
    await symlink('../../my-skills/review', path);
    const { report } = await doctor();
    assert.deepEqual(report.findings.map((f) => f.code), ['SF_DRIFT_FOREIGN'], JSON.stringify(report));
    assert.match(report.findings[0].message, /links outside the Forge store/);
    await doctor('--fix', '--force');
    assert.equal(await readlink(path), '../../my-skills/review');
  });
});
