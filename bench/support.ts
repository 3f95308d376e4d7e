import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Shared helpers for bench/*.bench.ts: timing, medians, ratios, clean child environments, temp dirs. */

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const sfBin = join(repoRoot, 'dist', 'cli', 'sf.cjs');

/** Median of a non-empty list of numbers. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Wall time of `fn` in milliseconds. */
export async function timeIt(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * The environment for benchmarked child processes: the parent's, without NODE_EXTRA_CA_CERTS
 * (loading extra CA certificates adds start-up time that is not part of what is measured).
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** `measured / baseline` as `0.93x`, with the target verdict when a target is given. */
export function ratio(measured: number, baseline: number, target?: number): string {
  const r = measured / baseline;
  const text = `${r.toFixed(2)}x`;
  if (target === undefined) return text;
  return `${text} (target <= ${target.toFixed(2)}x: ${r <= target ? 'met' : 'NOT met'})`;
}

/** Milliseconds as a short human string. */
export const ms = (value: number): string => `${value.toFixed(1)} ms`;

export interface ChildRun {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command with a clean environment, draining stdout/stderr, and returns its wall time from
 * spawn to exit. Output is kept in memory only when `capture` is set, so large outputs cost the
 * same for every command measured.
 */
export function runTimed(command: string, args: readonly string[], options: { cwd?: string; capture?: boolean } = {}): Promise<ChildRun> {
  return new Promise((resolvePromise, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { cwd: options.cwd, env: cleanEnv({ NO_COLOR: '1' }), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const errs: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => options.capture && out.push(d));
    child.stderr.on('data', (d: Buffer) => errs.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      resolvePromise({ ms: elapsed, code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(errs).toString('utf8') });
    });
  });
}

/** A fresh temporary directory under os.tmpdir(), removed by `cleanup`. */
export async function benchTempDir(prefix = 'sf-bench-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A stable directory under os.tmpdir() for inputs that are expensive to generate and reused between runs. */
export async function benchCacheDir(name: string): Promise<string> {
  const path = join(tmpdir(), `sf-bench-cache-${name}`);
  await mkdir(path, { recursive: true });
  return path;
}

/** A small deterministic PRNG (mulberry32) so generated inputs are identical on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Prints a bench's figures as aligned `label  value` lines. */
export function report(rows: [string, string][]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) process.stdout.write(`  ${label.padEnd(width)}  ${value}\n`);
}
