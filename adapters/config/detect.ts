import { access, constants, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { hasErrno } from '../../core/errors/index.js';
import type { HostDetection } from '../../core/install/host-adapter.js';

async function isExecutable(path: string): Promise<boolean> {
  try {
    const st = await stat(path);
    if (!st.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'EACCES') || hasErrno(e, 'ENOTDIR')) return false;
    throw e;
  }
}

/** The first executable named `name` on the context's PATH, or undefined. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return false;
    throw e;
  }
}

/**
 * Detection from a binary name and candidate directories/files: present when the binary is on PATH
 * or one of `markers` exists; `configFiles` lists the existing ones of `configs`.
 */
export async function detectHost(binary: string, markers: string[], configs: string[], env: NodeJS.ProcessEnv): Promise<HostDetection> {
  const evidence: string[] = [];
  const bin = await findOnPath(binary, env);
  if (bin) evidence.push(`${binary} binary on PATH (${bin})`);
  for (const m of markers) if (await pathExists(m)) evidence.push(`found ${m}`);
  const configFiles: string[] = [];
  for (const c of configs) {
    if (!(await pathExists(c))) continue;
    configFiles.push(c);
    if (!evidence.some((e) => c.startsWith(e.slice('found '.length)))) evidence.push(`found ${c}`);
  }
  return { present: evidence.length > 0, evidence, configFiles };
}
