import { lstat, readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { resolveWriteTarget } from '../fs/atomic.js';
import { readdirIfPresent } from '../fs/read-dir.js';
import type { Library } from '../library/db.js';
import { stillRunningSince } from '../runtime/processes.js';
import type { Session } from './context.js';

/**
 * Temp siblings (`.<name>.<pid>.<random>.tmp`, see tempSibling) that a command killed in the
 * middle of an atomic write left next to a host config Forge edits, or in $SF_HOME/backups. Each
 * is a full copy of a config, with its mode. Also the private files of lock attempts on such a
 * config (`.<name>.sf-lock.<pid>.<random>`). Only that exact pattern, next to a config file a
 * record or a write note names, and only when the pid is no longer the process that wrote it:
 * the user's own files are never candidates.
 */
export async function configTempLeftovers(session: Pick<Session, 'paths'>, lib: Library): Promise<string[]> {
  const configs = new Set<string>();
  for (const inst of lib.listInstallations()) for (const t of inst.targets) for (const e of t.configEdits) configs.add(e.file);
  for (const file of await notedConfigs(session.paths.backups)) configs.add(file);
  const out = new Set<string>();
  for (const config of configs) {
    const target = await resolveWriteTarget(config).catch(() => config);
    for (const path of await tempsOf(dirname(target), (name) => name === `.${basename(target)}`)) out.add(path);
  }
  // everything in $SF_HOME/backups is Forge's: backups and write notes
  for (const dir of await subdirs(session.paths.backups, 2)) for (const path of await tempsOf(dir, () => true)) out.add(path);
  return [...out].sort();
}

const TEMP = /^(\..+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;
/** The private file a lock attempt on that config writes first (core/fs/file-lock.ts), left by a kill, or by a full disk before that was handled. */
const LOCK_TEMP = /^(\..+)\.sf-lock(?:\.takeover)?\.(\d+)\.[0-9a-f]{8}$/;

async function tempsOf(dir: string, forName: (prefix: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdirIfPresent(dir)) {
    const m = TEMP.exec(name) ?? LOCK_TEMP.exec(name);
    if (!m || !forName(m[1])) continue;
    const path = join(dir, name);
    const st = await lstat(path).catch(() => undefined);
    if (!st?.isFile() || stillRunningSince(Number(m[2]), st.mtimeMs)) continue;
    out.push(path);
  }
  return out;
}

/** The config files the write notes under `backups` name (they outlive a record that was never kept). */
async function notedConfigs(backups: string): Promise<string[]> {
  const out: string[] = [];
  for (const agent of await readdirIfPresent(backups)) {
    const dir = join(backups, agent, 'write-notes');
    for (const name of await readdirIfPresent(dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        const file = (JSON.parse(await readFile(join(dir, name), 'utf8')) as { file?: unknown }).file;
        if (typeof file === 'string') out.push(file);
      } catch {
        // a note cut short by a crash names nothing
      }
    }
  }
  return out;
}

/** `dir` and its subdirectories down to `depth` levels. */
async function subdirs(dir: string, depth: number): Promise<string[]> {
  const out = [dir];
  if (depth === 0) return out;
  for (const name of await readdirIfPresent(dir)) {
    const path = join(dir, name);
    if ((await lstat(path).catch(() => undefined))?.isDirectory()) out.push(...(await subdirs(path, depth - 1)));
  }
  return out;
}

/**
 * Deletes the temp siblings configTempLeftovers finds and returns them. Run by the recovery of an
 * interrupted command (the writer that left them is gone) and by `sf skit doctor --fix`.
 */
export async function removeConfigTemps(session: Pick<Session, 'paths'>, lib: Library): Promise<string[]> {
  const temps = await configTempLeftovers(session, lib);
  for (const path of temps) await unlink(path).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
  return temps;
}
