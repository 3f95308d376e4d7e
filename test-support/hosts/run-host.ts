import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../index.js';

/** Absolute path of a host binary installed from npm (devDependencies); throws loudly when missing. */
export function hostBinary(rel: string, pkg: string): string {
  const bin = join(repoRoot, 'node_modules', rel);
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: install the devDependency ${pkg} (cd ${repoRoot} && npm install). Real-host tests never skip.`);
  }
  return bin;
}

export interface HostRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a host binary with a clean environment (only PATH, HOME, TERM plus `env`), stdin closed,
 * killed after `timeoutMs`. Nothing from the developer's own environment (API keys, config dirs)
 * leaks in.
 */
export function runHost(bin: string, args: string[], o: { cwd: string; home: string; env: Record<string, string>; timeoutMs: number; path?: string }): Promise<HostRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: o.cwd,
      env: { PATH: o.path ?? process.env.PATH ?? '/usr/bin:/bin', HOME: o.home, TERM: 'dumb', ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
