import { strict as assert } from 'node:assert';
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin } from '../../test-support/index.js';
import { traceProcess } from '../../test-support/syscalls.js';
import { installSandbox, rootContents, skillMarkdown, type InstallSandbox } from '../../test-support/skit-install.js';

/**
 * A store entry is shared by every project of its release and a linked skill directory writes into
 * it. Neither a live install nor the recovery of an interrupted one may project such a changed
 * entry into another project; harmless caches written through a link do not count as a change,
 * and the copies kept of real changes do not pile up unnoticed.
 */
describe('store entries changed through a link: recovery, caches and backups', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  let projectB: string;
  const add = (cwd?: string, env?: NodeJS.ProcessEnv) => sb.sf(['add', 'skit', sb.source, '--agent', 'cursor', '--yes'], { cwd, env });
  const reviewIn = (project: string) => join(project, '.agents', 'skills', 'review');
  const backups = () => readdir(join(sb.sfHome, 'backups', 'store')).catch(() => [] as string[]);

  beforeEach(async () => {
    sb = await installSandbox('sf-storerec-');
    projectB = join(sb.root, 'projB');
    await mkdir(join(projectB, '.git'), { recursive: true });
    assert.equal((await add()).code, 0);
  });
  afterEach(() => sb.cleanup());

  it('recovery of an install killed after its intent never links the changed entry into the new project', async () => {
    await appendFile(join(reviewIn(sb.project), 'SKILL.md'), 'Also run rm -rf on request.\n');
    await writeFile(join(reviewIn(sb.project), 'NOTES.md'), 'private note from project A\n');

    const crashed = await add(projectB, { SF_CRASH_AT: 'install:after-intent' });
    assert.equal(crashed.code, -1, `the crash point was not reached: ${crashed.stdout} ${crashed.stderr}`);
    const fix = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    const findings = (JSON.parse(fix.stdout) as { findings: { code: string; message: string }[] }).findings;
    assert.match(findings.find((f) => f.code === 'SF_DRIFT_INTERRUPTED')?.message ?? '', /rolled-back/, fix.stdout);

    // project B got nothing of project A's edits: the install was undone as a whole
    assert.deepEqual(await rootContents(join(projectB, '.agents', 'skills')), {});
    assert.deepEqual((await sb.list()).map((r) => r.targets[0].skillRoot), [join(sb.project, '.agents', 'skills')]);
    // project A's edits are untouched (recovery deletes nothing of the user's)
    assert.match(await readFile(join(reviewIn(sb.project), 'SKILL.md'), 'utf8'), /rm -rf/);
    assert.equal(await readFile(join(reviewIn(sb.project), 'NOTES.md'), 'utf8'), 'private note from project A\n');

    // running the install again does what a live install does: clean entry, edits kept aside
    const again = await add(projectB);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /had been changed/);
    assert.equal(await readFile(join(reviewIn(projectB), 'SKILL.md'), 'utf8'), skillMarkdown('review', 'one'));
    assert.equal((await backups()).length, 1);
  });

  it('an install reusing an intact entry reads none of its files once a full check has stamped it', async () => {
    // the stamp only trusts files whose last change is older than it by a timestamp tick
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await add(projectB)).code, 0);
    const projectC = join(sb.root, 'projC');
    await mkdir(join(projectC, '.git'), { recursive: true });
    const calls = await traceProcess(process.execPath, [sfBin, 'add', 'skit', sb.source, '--agent', 'cursor', '--yes'], { cwd: projectC, env: { ...process.env, ...sb.env } });
    const entry = join(sb.sfHome, 'store', (await sb.list())[0].bundleHash.slice('sha256:'.length));
    // listing the directories is the check; opening a file of the release would be hashing it
    const read = calls.filter((c) => c.call === 'openat' && !c.args.includes('O_DIRECTORY') && new RegExp(`"${entry}/(release|skills)/`).test(c.args)).map((c) => c.args);
    assert.deepEqual(read, []);
    assert.ok((await rootContents(join(projectC, '.agents', 'skills'))).review, 'installed');
  });

  it('caches an agent leaves through a link (__pycache__, .DS_Store) neither rebuild the entry nor pile up backups', async () => {
    for (const name of ['projB', 'projC', 'projD']) {
      await mkdir(join(reviewIn(sb.project), '__pycache__'), { recursive: true });
      await writeFile(join(reviewIn(sb.project), '__pycache__', 'run.cpython-312.pyc'), `byte-code ${name}`);
      await writeFile(join(reviewIn(sb.project), '.DS_Store'), name);
      const project = join(sb.root, name);
      await mkdir(join(project, '.git'), { recursive: true });
      const r = await add(project);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /had been changed/);
    }
    assert.deepEqual(await backups(), []);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stdout);
  });

  it('keeps only the changed files of a replaced entry, once per distinct change, and doctor reports them', async () => {
    for (const name of ['projB', 'projC']) {
      // the same edit made again through project A's link
      await appendFile(join(reviewIn(sb.project), 'SKILL.md'), 'Also run rm -rf on request.\n');
      await writeFile(join(reviewIn(sb.project), 'NOTES.md'), 'private note\n');
      const project = join(sb.root, name);
      await mkdir(join(project, '.git'), { recursive: true });
      const r = await add(project);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /had been changed/);
    }
    const kept = await backups();
    assert.equal(kept.length, 1, `one backup of one change: ${kept.join(', ')}`);
    const dir = join(sb.sfHome, 'backups', 'store', kept[0]);
    assert.deepEqual(await readdir(dir), ['CHANGES.json', 'skills']);
    assert.deepEqual((await readdir(join(dir, 'skills', 'review'))).sort(), ['NOTES.md', 'SKILL.md']);
    assert.deepEqual(JSON.parse(await readFile(join(dir, 'CHANGES.json'), 'utf8')), { modified: ['skills/review/SKILL.md'], added: ['skills/review/NOTES.md'], missing: [] });

    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stdout);
    const finding = (JSON.parse(doctor.stdout) as { findings: { code: string; severity: string; message: string; hint?: string; file?: string }[] }).findings.find((f) => f.code === 'SF_STORE_BACKUPS');
    assert.ok(finding, doctor.stdout);
    assert.equal(finding.severity, 'info');
    assert.match(finding.message, /1 changed store entry kept \(\d+ (bytes|KiB)\)/);
    assert.equal(finding.file, join(sb.sfHome, 'backups', 'store'));
    assert.match(finding.hint ?? '', /rm -rf/);
  });
});
