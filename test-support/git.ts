import { execFileSync } from 'node:child_process';
import { writeTree, type FixtureTree } from './index.js';

/** Environment for deterministic scratch repositories, isolated from the user's git config. */
export const GIT_TEST_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Forge Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Forge Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

/** Runs the system git in `cwd` and returns its trimmed stdout. */
export function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_TEST_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** `git init` with `main` as the initial branch. */
export function initRepo(dir: string): void {
  git(dir, ['init', '--quiet', '--initial-branch=main', '.']);
}

/** Writes `tree` into the work tree, commits everything, and returns the new commit id. */
export async function commitTree(dir: string, tree: FixtureTree, message: string): Promise<string> {
  await writeTree(dir, tree);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '--quiet', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']);
}

/** A SKILL.md with the given name. */
export function skillMd(name: string, description = `The ${name} skill. Use it in tests.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
}

/**
 * A bare repository at `bare` whose one commit has a tree entry named `..` (written with
 * `hash-object --literally`: git's own commands refuse to make one), as a hostile server would.
 */
export function unsafeTreeRepo(bare: string): void {
  git('/', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  const blob = execFileSync('git', ['-C', bare, 'hash-object', '-w', '--stdin'], { env: GIT_TEST_ENV, input: '---\nname: evil\ndescription: x\n---\n' }).toString().trim();
  const entry = (mode: string, name: string, sha: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(sha, 'hex')]);
  const writeTree = (bytes: Buffer) => execFileSync('git', ['-C', bare, 'hash-object', '-w', '--literally', '-t', 'tree', '--stdin'], { env: GIT_TEST_ENV, input: bytes }).toString().trim();
  const inner = writeTree(entry('100644', 'SKILL.md', blob));
  const root = writeTree(Buffer.concat([entry('40000', '..', inner), entry('100644', 'SKILL.md', blob)]));
  const commit = execFileSync('git', ['-C', bare, 'commit-tree', root, '-m', 'unsafe'], { env: GIT_TEST_ENV }).toString().trim();
  git(bare, ['update-ref', 'refs/heads/main', commit]);
}

/**
 * A bare repository whose `main` is a "git bomb": `levels` levels of trees, each holding `fanout`
 * entries that all point at the same tree below (and at the bottom the same blob), so a pack of a
 * few hundred bytes checks out fanout^levels files.
 */
export function gitBombRepo(bare: string, levels: number, fanout: number): void {
  git('/', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  const hash = (type: string, input: string | Buffer) => execFileSync('git', ['-C', bare, 'hash-object', '-w', '-t', type, '--stdin'], { env: GIT_TEST_ENV, input }).toString().trim();
  const entries = (mode: string, prefix: string, sha: string) =>
    Buffer.concat(Array.from({ length: fanout }, (_, i) => Buffer.concat([Buffer.from(`${mode} ${prefix}${i}\0`), Buffer.from(sha, 'hex')])));
  let sha = hash('blob', 'boom\n');
  let mode = '100644';
  let prefix = 'f';
  for (let l = 0; l < levels; l++) {
    sha = hash('tree', entries(mode, prefix, sha));
    mode = '40000';
    prefix = 'd';
  }
  const commit = execFileSync('git', ['-C', bare, 'commit-tree', sha, '-m', 'bomb'], { env: GIT_TEST_ENV }).toString().trim();
  git(bare, ['update-ref', 'refs/heads/main', commit]);
}
