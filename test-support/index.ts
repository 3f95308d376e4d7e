import { mkdtemp, mkdir, rm, writeFile, chmod } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (works from source via tsx). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const fixturesDir = join(repoRoot, 'fixtures');
export const sfBin = join(repoRoot, 'dist', 'cli', 'sf.cjs');

/** A fresh temporary directory, removed by the returned cleanup. */
export async function tempDir(prefix = 'sf-test-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

export type FixtureTree = Record<string, string | Buffer | { content: string | Buffer; mode: number }>;

/** Writes an inline file tree (changesets' testdir style) below `root`. */
export async function writeTree(root: string, tree: FixtureTree): Promise<void> {
  for (const [rel, spec] of Object.entries(tree)) {
    const abs = join(root, ...rel.split('/'));
    await mkdir(dirname(abs), { recursive: true });
    if (typeof spec === 'string' || Buffer.isBuffer(spec)) {
      await writeFile(abs, spec);
    } else {
      await writeFile(abs, spec.content);
      await chmod(abs, spec.mode);
    }
  }
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `sf` CLI (dist/) with `args`; `npm test` builds first. */
export function runSf(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer } = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [sfBin, ...args], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
