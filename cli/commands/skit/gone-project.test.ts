import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { commitTree, git, initRepo } from '../../../test-support/git.js';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';

interface Finding { code: string; severity: string; message: string; hint?: string; fixed?: boolean; skitId?: string; file?: string }

/**
 * A project deleted, moved or a git worktree removed after an install: doctor says so once and
 * never creates the directory again (a worktree added back at that path would find it in the way),
 * and `sf skit remove --project <path>` forgets the installation from anywhere.
 */
describe('an installation whose project is gone', () => {
  let sb: InstallSandbox;
  let elsewhere: string;
  const doctor = async (...args: string[]) => {
    const r = await sb.sf(['skit', 'doctor', '--json', ...args], { cwd: elsewhere });
    return { code: r.code, findings: (JSON.parse(r.stdout) as { findings: Finding[]; clean: boolean }).findings, clean: (JSON.parse(r.stdout) as { clean: boolean }).clean };
  };
  beforeEach(async () => {
    sb = await installSandbox('sf-gone-');
    elsewhere = join(sb.root, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    // Codex keeps its switches in ~/.codex/config.toml, outside the project: the removal must take them out
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code,codex,windsurf', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    assert.equal((await sb.sf(['skit', 'disable', 'acme/kit:lint'])).code, 0);
    assert.match(await readFile(join(sb.home, '.codex', 'config.toml'), 'utf8'), /lint\/SKILL\.md/);
  });
  afterEach(() => sb.cleanup());

  it('doctor reports it once, and --fix neither recreates the project nor calls it fixed', async () => {
    await rm(sb.project, { recursive: true });
    const found = await doctor();
    assert.equal(found.code, 1);
    assert.deepEqual(found.findings.map((f) => [f.code, f.severity, f.skitId, f.file]), [['SF_DRIFT_PROJECT_GONE', 'warning', 'acme/kit', sb.project]], JSON.stringify(found.findings));
    assert.match(found.findings[0].hint ?? '', new RegExp(`sf skit remove acme/kit --project ${sb.project}`));

    const fixed = await doctor('--fix');
    assert.equal(fixed.code, 1, JSON.stringify(fixed.findings));
    assert.equal(fixed.clean, false);
    assert.deepEqual(fixed.findings.map((f) => [f.code, f.fixed ?? false]), [['SF_DRIFT_PROJECT_GONE', false]]);
    assert.equal(existsSync(sb.project), false, 'doctor --fix created the deleted project again');
  });

  it('a moved project is gone from its old path too: doctor leaves the old path alone', async () => {
    await rename(sb.project, join(sb.root, 'moved'));
    await doctor('--fix');
    assert.equal(existsSync(sb.project), false);
    const text = await sb.sf(['skit', 'doctor', '--fix'], { cwd: elsewhere });
    assert.match(text.stdout, /problems remain: 1 warning left/);
    assert.equal(existsSync(sb.project), false);
  });

  it('a git worktree removed by git stays removed, so `git worktree add` at that path works again', async () => {
    const main = join(sb.root, 'main');
    const worktree = join(sb.root, 'wt');
    await mkdir(main, { recursive: true });
    initRepo(main);
    await commitTree(main, { 'README.md': 'x\n' }, 'init');
    git(main, ['worktree', 'add', '--quiet', worktree, '-b', 'wt']);
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'], { cwd: worktree })).code, 0);
    git(main, ['worktree', 'remove', '--force', worktree]);
    const fixed = await doctor('--fix');
    assert.ok(fixed.findings.some((f) => f.code === 'SF_DRIFT_PROJECT_GONE' && f.file === worktree && !f.fixed), JSON.stringify(fixed.findings));
    assert.equal(existsSync(worktree), false);
    git(main, ['worktree', 'add', '--quiet', worktree, 'wt']);
  });

  it('list marks it, and `sf skit remove ID --project PATH` forgets it from anywhere, cleaning config outside the project', async () => {
    await rm(sb.project, { recursive: true });
    const table = await sb.sf(['skit', 'list'], { cwd: elsewhere });
    assert.ok(table.stdout.includes(`project ${sb.project} (gone)`), table.stdout);
    const listed = JSON.parse((await sb.sf(['skit', 'list', '--json'], { cwd: elsewhere })).stdout) as { projectGone?: boolean }[];
    assert.deepEqual(listed.map((r) => r.projectGone), [true]);

    // without --project the command acts in the user scope here, and its hint names the way
    const plain = await sb.sf(['skit', 'remove', 'acme/kit'], { cwd: elsewhere });
    assert.equal(plain.code, 3);
    assert.match(plain.stderr, new RegExp(`that project is gone: \`sf skit remove\` with --project ${sb.project}`));
    assert.doesNotMatch(plain.stderr, /use --scope/);

    const removed = await sb.sf(['skit', 'remove', 'acme/kit', '--project', sb.project, '--json'], { cwd: elsewhere });
    assert.equal(removed.code, 0, removed.stderr);
    const out = JSON.parse(removed.stdout) as { agents: string[]; notes: string[] };
    assert.deepEqual(out.agents.sort(), ['claude-code', 'codex', 'windsurf']);
    assert.ok(out.notes.some((n) => n.includes(`the project ${sb.project} is gone`)), removed.stdout);
    assert.equal(existsSync(sb.project), false, 'remove created the deleted project again');
    // Forge created ~/.codex/config.toml for its block, so the file goes with it
    assert.equal(existsSync(join(sb.home, '.codex', 'config.toml')), false);
    assert.equal((await sb.sf(['skit', 'list', '--json'], { cwd: elsewhere })).stdout.trim(), '[]');
    const after = await doctor();
    assert.equal(after.code, 0, JSON.stringify(after.findings));
  });

  it('--project also names a project that exists, from outside it, and refuses --scope user with it', async () => {
    const both = await sb.sf(['skit', 'remove', 'acme/kit', '--project', sb.project, '--scope', 'user'], { cwd: elsewhere });
    assert.equal(both.code, 2, both.stderr);
    const removed = await sb.sf(['skit', 'remove', 'acme/kit', '--project', join(sb.project, '.claude')], { cwd: elsewhere });
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(await sb.list(), []);
  });
});
