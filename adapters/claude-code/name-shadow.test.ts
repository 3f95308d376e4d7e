import { strict as assert } from 'node:assert';
import { cp, mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProjectionRecord } from '../../core/install/host-adapter.js';
import { adapterFixture, SKILL_BODY, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { writeTree } from '../../test-support/index.js';
import { installSandbox, skillMarkdown, type InstallSandbox } from '../../test-support/skit-install.js';
import { claudeNameShadows } from './name-shadow.js';

type Finding = { code: string; file?: string; skitId?: string; message: string; hint?: string };
const shadows = (found: Finding[]) => found.filter((d) => d.code === 'SF_ADAPTER_NAME_SHADOW');
const diagnosticsOf = (stdout: string) => shadows(JSON.parse(stdout).diagnostics as Finding[]);
const findingsOf = (stdout: string) => shadows((JSON.parse(stdout) as { findings: Finding[] }).findings);

describe('claude-code adapter: same-named skills that skillOverrides (keyed by name) also reach', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-claude-shadow-')));
  afterEach(() => sb.cleanup());
  const userScope = ['--scope', 'user', '--agent', 'claude-code', '--yes'];

  it('a user-scope install, disable and enable warn about the project\'s own same-named skill in .claude/skills around the current directory, and doctor does too', async () => {
    const mine = join(sb.project, '.claude', 'skills', 'review');
    await writeTree(mine, { 'SKILL.md': skillMarkdown('review', 'the project\'s own review') });
    const add = await sb.sf(['add', 'skit', sb.source, ...userScope, '--json']);
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(diagnosticsOf(add.stdout).map((d) => d.file), [mine], add.stdout);

    const disable = await sb.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user']);
    assert.equal(disable.code, 0, disable.stderr);
    assert.match(disable.stderr, /SF_ADAPTER_NAME_SHADOW/);
    assert.ok(disable.stderr.includes(mine), disable.stderr);
    assert.match(disable.stderr, /skillOverrides apply by name to both/);
    assert.match(disable.stderr, /[Rr]ename one of them/);
    // the switch itself is still written: the warning says what it reaches, it does not refuse
    assert.deepEqual(JSON.parse(await readFile(join(sb.home, '.claude', 'settings.json'), 'utf8')), { skillOverrides: { review: 'off' } });
    // the user's skill is left as it was
    assert.match(await readFile(join(mine, 'SKILL.md'), 'utf8'), /the project's own review/);

    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.deepEqual(findingsOf(doctor.stdout).map((f) => [f.skitId, f.file]), [['acme/kit', mine]], doctor.stdout);
    const enable = await sb.sf(['skit', 'enable', 'acme/kit:review', '--scope', 'user', '--json']);
    assert.equal(enable.code, 0, enable.stderr);
    assert.deepEqual(diagnosticsOf(enable.stdout).map((d) => d.file), [mine], enable.stdout);
  });

  it('says nothing when the project holds the same release, installed at project scope too: that is the same skill', async () => {
    const user = await sb.sf(['add', 'skit', sb.source, ...userScope, '--json']);
    assert.equal(user.code, 0, user.stderr);
    const project = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes', '--json']);
    assert.equal(project.code, 0, project.stderr);
    assert.deepEqual(diagnosticsOf(project.stdout), [], project.stdout);
    const disable = await sb.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user', '--json']);
    assert.equal(disable.code, 0, disable.stderr);
    assert.deepEqual(diagnosticsOf(disable.stdout), [], disable.stdout);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.deepEqual(findingsOf(doctor.stdout), [], doctor.stdout);
  });

  it('the same SKIT at another release in the other scope is one skill, said as info: doctor is clean from both sides', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, ...userScope])).code, 0);
    await writeTree(sb.source, { 'skills/review/SKILL.md': skillMarkdown('review', 'two') });
    const project = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes', '--json']);
    assert.equal(project.code, 0, project.stderr);
    const userReview = join(sb.home, '.claude', 'skills', 'review');
    const found = diagnosticsOf(project.stdout).filter((d) => d.file === userReview) as (Finding & { severity: string })[];
    assert.deepEqual(found.map((d) => d.severity), ['info'], project.stdout);
    assert.match(found[0].message, /another release of it installed by Forge in the user scope/);
    assert.match(found[0].message, /it uses that user-scope copy, not this project's/);

    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stdout);
    const shadows = findingsOf(doctor.stdout) as (Finding & { severity: string })[];
    assert.deepEqual([...new Set(shadows.map((f) => f.skitId))], ['acme/kit'], doctor.stdout);
    assert.ok(shadows.length > 0 && shadows.every((f) => f.severity === 'info'), doctor.stdout);
    assert.ok(shadows.some((f) => f.file === join(sb.project, '.claude', 'skills', 'review')), 'the user installation sees the project\'s too');
    assert.equal((JSON.parse(doctor.stdout) as { clean: boolean }).clean, true);
  });

  it('looks in the current directory and its parents up to the repository root, not above it', async () => {
    const sub = join(sb.project, 'pkg', 'app');
    const nested = join(sub, '.claude', 'skills', 'review');
    const atRoot = join(sb.project, '.claude', 'skills', 'summarize');
    await writeTree(nested, { 'SKILL.md': skillMarkdown('review') });
    await writeTree(atRoot, { 'SKILL.md': skillMarkdown('summarize') });
    // above the repository: Claude Code does not read it for this project
    await writeTree(join(sb.root, '.claude', 'skills', 'lint'), { 'SKILL.md': skillMarkdown('lint') });
    const add = await sb.sf(['add', 'skit', sb.source, ...userScope, '--json'], { cwd: sub });
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(diagnosticsOf(add.stdout).map((d) => d.file).sort(), [atRoot, nested].sort(), add.stdout);
    // from another directory with no such skills there is nothing to say
    const elsewhere = join(sb.root, 'elsewhere');
    await mkdir(join(elsewhere, '.git'), { recursive: true });
    const disable = await sb.sf(['skit', 'disable', 'acme/kit:review', '--scope', 'user', '--json'], { cwd: elsewhere });
    assert.equal(disable.code, 0, disable.stderr);
    assert.deepEqual(diagnosticsOf(disable.stdout), [], disable.stdout);
  });

  it('finds a skill by its SKILL.md name, not only by its directory name, at both scopes', async () => {
    const projectOwn = join(sb.project, '.claude', 'skills', 'my-review');
    await writeTree(projectOwn, { 'SKILL.md': '---\nname: "review"\ndescription: mine\n---\n' });
    const userOwn = join(sb.home, '.claude', 'skills', 'my-lint');
    await writeTree(userOwn, { 'SKILL.md': '---\nname: lint\ndescription: mine\n---\n' });
    const user = await sb.sf(['add', 'skit', sb.source, ...userScope, '--json']);
    assert.equal(user.code, 0, user.stderr);
    // the user's my-lint sits in the very root Forge installs into, and is still not Forge's
    assert.deepEqual(diagnosticsOf(user.stdout).map((d) => d.file).sort(), [projectOwn, userOwn].sort(), user.stdout);
    assert.equal((await sb.sf(['skit', 'remove', 'acme/kit', '--scope', 'user'])).code, 0);

    const project = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes', '--json']);
    assert.equal(project.code, 0, project.stderr);
    assert.deepEqual(diagnosticsOf(project.stdout).map((d) => d.file).sort(), [projectOwn, userOwn].sort(), project.stdout);
  });
});

describe('claude-code name shadows: a pass over many installations looks up names, it does not walk every skill for each', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());

  /** A store entry of another release holding `names`, as core/library lays it out. */
  async function otherRelease(hex: string, names: string[]): Promise<string> {
    const skills = join(f.sfHome, 'store', hex.repeat(32), 'skills');
    for (const n of names) await writeTree(join(skills, n), { 'SKILL.md': SKILL_BODY(n) });
    return skills;
  }

  it('finds the same shadows with a pass memo as without, and keeps one index per root in it, nothing per skill', async () => {
    const projectRoot = join(f.project, '.claude', 'skills');
    const userRoot = join(f.home, '.claude', 'skills');
    await mkdir(projectRoot, { recursive: true });
    await mkdir(userRoot, { recursive: true });
    // this installation: acme/kit's alpha and beta linked into the project
    for (const [name, dir] of Object.entries(f.sourceDirs)) await symlink(dir, join(projectRoot, name));
    const record: ProjectionRecord = { agent: 'claude-code', scope: 'project', projectRoot: f.project, skillRoot: projectRoot, configEdits: [],
      paths: (['alpha', 'beta'] as const).map((n) => ({ skillId: `acme/kit:${n}`, path: join(projectRoot, n), mode: 'symlink' as const })) };
    // many other installations' skills in both roots, none named like acme/kit's
    const others = await otherRelease('cd', Array.from({ length: 40 }, (_, i) => `other-${i}`));
    for (let i = 0; i < 40; i++) await symlink(join(others, `other-${i}`), join(i % 2 ? userRoot : projectRoot, `other-${i}`));
    // the user's own skill going by alpha's frontmatter name; another release's alpha in the user's root; a copy of this beta
    const mine = join(projectRoot, 'my-alpha');
    await writeTree(mine, { 'SKILL.md': '---\nname: alpha\ndescription: mine\n---\n' });
    const theirs = await otherRelease('ef', ['alpha']);
    await symlink(join(theirs, 'alpha'), join(userRoot, 'alpha'));
    await cp(f.sourceDirs.beta, join(userRoot, 'beta'), { recursive: true });

    const ctx = { ...f.ctx('project'), cwd: f.project };
    const req = f.request(['alpha']);
    const fresh = await claudeNameShadows(req, record, ctx);
    assert.deepEqual(fresh.map((d) => [d.file, /installed by Forge in the user scope/.test(d.message)]), [[mine, false], [join(userRoot, 'alpha'), true]]);
    const memo = new Map<string, Promise<unknown>>();
    for (let i = 0; i < 5; i++) assert.deepEqual(await claudeNameShadows(req, record, { ...ctx, memo }), fresh);
    // the two roots this context reaches, each scanned and indexed once
    assert.equal(memo.size, 4, [...memo.keys()].join('\n'));
  });
});
