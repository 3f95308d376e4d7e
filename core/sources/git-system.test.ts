import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { commitTree, git, gitBombRepo, initRepo, skillMd, unsafeTreeRepo } from '../../test-support/git.js';
import { resolveSource } from './index.js';
import { systemCloneCommands } from './git-system.js';

/**
 * An ssh stand-in for GIT_SSH_COMMAND: logs its arguments, then runs the remote command
 * (`git-upload-pack '<path>'`) locally — a real ssh-transport clone without sshd.
 */
const FAKE_SSH = `#!/bin/sh
printf '%s\\n' "$@" >> "$SSH_LOG"
for last; do :; done
exec sh -c "$last"
`;

describe('core/sources git through the system git (file:// and ssh://)', function () {
  let root: string;
  let cleanup: () => Promise<void>;
  let bare: string;
  let head: string;
  let first: string;
  let sshEnv: NodeJS.ProcessEnv;
  let log: string;
  let n = 0;
  const work = () => join(root, 'work', String(n++));

  before(async () => {
    ({ path: root, cleanup } = await tempDir('sf-src-gitsys-'));
    const src = join(root, 'src');
    await mkdir(src);
    initRepo(src);
    first = await commitTree(src, { 'SKILL.md': skillMd('solo') }, 'one');
    head = await commitTree(src, { 'SKILL.md': skillMd('solo', 'two'), 'pack/.agents/skills/p/SKILL.md': skillMd('p') }, 'two');
    git(src, ['tag', 'v2']);
    bare = join(root, 'repo.git');
    git(root, ['clone', '--quiet', '--bare', src, bare]);
    log = join(root, 'ssh.log');
    const script = join(root, 'fake-ssh.sh');
    await writeFile(script, FAKE_SSH);
    await chmod(script, 0o755);
    sshEnv = { ...process.env, GIT_SSH_COMMAND: script, GIT_SSH_VARIANT: 'simple', SSH_LOG: log };
  });
  after(() => cleanup());

  it('clones file:// with #<ref>:<subpath> and records the commit', async () => {
    const r = await resolveSource(`file://${bare}#v2:pack`, { cwd: root, workDir: work() });
    assert.equal(r.kind, 'git');
    assert.equal(r.commit, head);
    assert.equal(r.ref, 'v2');
    assert.equal(r.canonical, `file://${bare}#v2:pack`);
    assert.deepEqual(r.descriptor?.skills, [{ name: 'p', path: '.agents/skills/p', default_enabled: true }]);
    assert.ok(!existsSync(join(r.dir, '..', '.git')), 'the .git directory is removed');
  });

  it('clones the default branch of file:// as a single-skill repository', async () => {
    const r = await resolveSource(`file://${bare}`, { cwd: root, workDir: work() });
    assert.equal(r.ref, 'main');
    assert.equal(r.commit, head);
    assert.match(await readFile(join(r.dir, 'SKILL.md'), 'utf8'), /two/);
    const pinned = await resolveSource(`file://${bare}#${first}`, { cwd: root, workDir: work() });
    assert.equal(pinned.commit, first);
    assert.doesNotMatch(await readFile(join(pinned.dir, 'SKILL.md'), 'utf8'), /two/);
  });

  it('clones ssh:// through the system git and GIT_SSH_COMMAND', async () => {
    await writeFile(log, '');
    const r = await resolveSource(`ssh://git@Example.INVALID${bare}#main`, { cwd: root, workDir: work(), env: sshEnv });
    assert.equal(r.commit, head);
    assert.equal(r.canonical, `ssh://git@example.invalid${bare}#main`);
    const args = (await readFile(log, 'utf8')).split('\n');
    assert.ok(args.includes('git@Example.INVALID') || args.includes('git@example.invalid'), args.join(' | '));
    assert.ok(args.some((a) => a.startsWith('git-upload-pack') && a.includes(bare)), args.join(' | '));
  });

  it('clones scp-like user@host:path over ssh with the same identity as ssh://', async () => {
    const scp = await resolveSource(`git@example.invalid:${bare}`, { cwd: root, workDir: work(), env: sshEnv });
    const url = await resolveSource(`ssh://git@example.invalid${bare}`, { cwd: root, workDir: work(), env: sshEnv });
    assert.equal(scp.commit, head);
    assert.equal(scp.fingerprint, url.fingerprint);
  });

  it('leaves the repository a git hook runs in alone, and checks out the committed bytes: no filters, ident or CRLF conversion', async () => {
    const src = join(root, 'attrs-src');
    await mkdir(src);
    initRepo(src);
    const commit = await commitTree(src, { '.gitattributes': '*.md filter=evil ident\n', 'SKILL.md': skillMd('attrs', 'Id $Id$ here.'), 'notes.txt': 'crlf\r\n' }, 'attrs');
    const attrsBare = join(root, 'attrs.git');
    git(root, ['clone', '--quiet', '--bare', src, attrsBare]);
    // the user's own repository, on a branch; sf runs as if from one of its hooks (GIT_DIR set)
    const mine = join(root, 'mine');
    await mkdir(mine);
    initRepo(mine);
    const myHead = await commitTree(mine, { 'a.txt': 'mine\n' }, 'mine');
    const marker = join(root, 'smudged');
    const globalConfig = join(root, 'evil.gitconfig');
    await writeFile(globalConfig, `[filter "evil"]\n\tsmudge = sh -c 'touch ${marker}; cat'\n[core]\n\tautocrlf = true\n`);
    const env = { ...process.env, GIT_DIR: join(mine, '.git'), GIT_WORK_TREE: mine, GIT_INDEX_FILE: join(mine, '.git', 'index'), GIT_CONFIG_GLOBAL: globalConfig };
    for (const source of [`file://${attrsBare}`, `file://${attrsBare}#${commit}`]) {
      const r = await resolveSource(source, { cwd: root, workDir: work(), env });
      assert.equal(r.commit, commit, source);
      assert.match(await readFile(join(r.dir, 'SKILL.md'), 'utf8'), /Id \$Id\$ here\./);
      assert.equal(await readFile(join(r.dir, 'notes.txt'), 'utf8'), 'crlf\r\n');
    }
    assert.ok(!existsSync(marker), 'the repository chose no filter to run');
    assert.equal(git(mine, ['rev-parse', 'HEAD']), myHead);
    assert.equal(git(mine, ['symbolic-ref', '--short', 'HEAD']), 'main', 'still on its branch, not detached');
    assert.equal(git(mine, ['status', '--porcelain']), '');
  });

  it('refuses a repository whose tree names ".." with SF_E_UNSAFE_PATH (git fsck of every received object)', async () => {
    const evil = join(root, 'unsafe.git');
    unsafeTreeRepo(evil);
    await assert.rejects(resolveSource(`file://${evil}`, { cwd: root, workDir: work() }), (e) => {
      assert.ok(isSfError(e, 'SF_E_UNSAFE_PATH'), String(e));
      assert.match(e.message, /unsafe tree entry \(hasDotdot: contains '\.\.'\)/);
      assert.ok(e.hint);
      return true;
    });
  });

  it('reports an empty repository, or a HEAD naming a missing branch, as SF_E_NOT_FOUND with a hint', async () => {
    const empty = join(root, 'empty.git');
    git(root, ['init', '--quiet', '--bare', empty]);
    const dangling = join(root, 'dangling.git');
    git(root, ['clone', '--quiet', '--bare', bare, dangling]);
    git(dangling, ['symbolic-ref', 'HEAD', 'refs/heads/nope']);
    for (const repo of [empty, dangling]) {
      await assert.rejects(resolveSource(`file://${repo}`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_NOT_FOUND') && /has no commits on its default branch/.test(e.message) && /#main/.test(e.hint ?? ''), repo);
    }
  });

  it('refuses a checkout over the byte limit before writing it (a small pack can hold a huge blob)', async () => {
    const src = join(root, 'big-src');
    await mkdir(src);
    initRepo(src);
    await commitTree(src, { 'SKILL.md': skillMd('big'), 'zeros.bin': Buffer.alloc(2 * 1024 * 1024) }, 'big');
    const big = join(root, 'big.git');
    git(root, ['clone', '--quiet', '--bare', src, big]);
    const dir = work();
    await assert.rejects(resolveSource(`file://${big}`, { cwd: root, workDir: dir, limits: { maxGitBytes: 1024 * 1024 } }), (e) => isSfError(e, 'SF_E_LIMIT') && /would check out more than 1048576 bytes/.test(e.message));
    const checkedOut = (await import('node:fs')).readdirSync(dir, { recursive: true }).map(String);
    assert.ok(!checkedOut.some((p) => p.endsWith('zeros.bin')), 'nothing was checked out');
    const ok = await resolveSource(`file://${big}`, { cwd: root, workDir: work() });
    assert.equal(ok.kind, 'git');
  });

  it('refuses a "git bomb" (a few hundred bytes of trees naming one another, 10,000 files) while listing it, before checkout', async () => {
    const bomb = join(root, 'bomb.git');
    gitBombRepo(bomb, 4, 10);
    const dir = work();
    await assert.rejects(resolveSource(`file://${bomb}`, { cwd: root, workDir: dir, limits: { maxGitFiles: 1000 } }), (e) => isSfError(e, 'SF_E_LIMIT') && /more than 1000 files/.test(e.message) && /git bomb/.test(e.hint ?? ''));
    const written = (await import('node:fs')).readdirSync(dir, { recursive: true }).map(String).filter((p) => !p.includes('.git'));
    assert.deepEqual(written.filter((p) => /f\d$/.test(p)), [], 'no file of the tree was written');
  });

  it('builds argument vectors with one allowed transport and the URL after --', () => {
    const [clone] = systemCloneCommands({ transport: 'ssh', url: 'ssh://h/r.git', ref: 'main', dest: '/d' });
    assert.deepEqual(clone, [
      '-c', 'protocol.allow=never', '-c', 'protocol.ssh.allow=always', '-c', 'transfer.fsckObjects=true',
      'clone', '--quiet', '--no-checkout', '--depth', '1', '--single-branch', '--no-tags', '--branch', 'main', '--', 'ssh://h/r.git', '/d',
    ]);
    const sha = 'a'.repeat(40);
    const steps = systemCloneCommands({ transport: 'file', url: 'file:///r', ref: sha, dest: '/d' });
    assert.equal(steps.length, 2);
    assert.ok(steps[0].includes('--no-checkout') && !steps[0].includes('--depth'));
    assert.deepEqual(steps[1].slice(-3), ['--detach', sha, '--']);
  });

  it('keeps an ssh password out of the source and the error', async () => {
    await assert.rejects(resolveSource(`ssh://bob:pw-SECRET-1@example.invalid${root}/missing.git`, { cwd: root, workDir: work(), env: sshEnv }), (e) => {
      assert.ok(isSfError(e, 'SF_E_NOT_FOUND') || isSfError(e, 'SF_E_GIT'), String(e));
      assert.ok(!JSON.stringify({ m: e.message, d: e.data }).includes('pw-SECRET-1'), e.message);
      return true;
    });
  });

  it('drops a password from an ssh:// URL before running git (it shows in ps; ssh never uses it) and says so', async () => {
    // a git on PATH that logs its arguments, then runs the real one
    const bin = join(root, 'logging-bin');
    const argsLog = join(root, 'git-args.log');
    await mkdir(bin, { recursive: true });
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$@" >> "$GIT_ARGS_LOG"\nexec ${realGit} "$@"\n`);
    await chmod(join(bin, 'git'), 0o755);
    await writeFile(log, '');
    const env = { ...sshEnv, PATH: `${bin}:${process.env.PATH}`, GIT_ARGS_LOG: argsLog };
    const r = await resolveSource(`ssh://git:hunter2-SECRET@example.invalid${bare}#main`, { cwd: root, workDir: work(), env });
    assert.equal(r.commit, head);
    const gitArgs = await readFile(argsLog, 'utf8');
    assert.match(gitArgs, /^ssh:\/\/git@example\.invalid\//m, 'git was run with the URL, without its password');
    assert.ok(!gitArgs.includes('hunter2') && !(await readFile(log, 'utf8')).includes('hunter2'), gitArgs);
    const note = r.diagnostics?.find((d) => d.code === 'SOURCE_SSH_PASSWORD_IGNORED');
    assert.equal(note?.severity, 'warning');
    assert.match(note?.message ?? '', /password in ssh:\/\/git(:\*\*\*)?@example\.invalid\S* was not used/);
    assert.ok(!JSON.stringify(r).includes('hunter2'));
  });

  it('reports a missing repository or ref as SF_E_NOT_FOUND', async () => {
    await assert.rejects(resolveSource(`file://${root}/nope.git`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
    await assert.rejects(resolveSource(`file://${bare}#no-such-branch`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
  });
});
