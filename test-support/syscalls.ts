import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot, tempDir } from './index.js';

/**
 * The real system calls of a piece of code, for durability tests: `traceSyscalls` runs it in a
 * node child under strace (Debian `strace`, installed by .ci/run), and `assertDurableRename`
 * checks the order a power cut cares about. A spy on fs functions could not tell whether the
 * fsync reached the directory the rename changed; the kernel's view can.
 */

export interface Syscall {
  pid: number;
  call: string;
  args: string;
  /** the return value (a new fd for openat), -1 for errors */
  result: number;
}

const TRACED = 'openat,mkdir,mkdirat,rename,renameat,renameat2,symlink,symlinkat,unlink,unlinkat,fsync,fdatasync,close';
const DONE = /^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)/;
const UNFINISHED = /^(\d+)\s+(\w+)\((.*) <unfinished \.\.\.>$/;
const RESUMED = /^(\d+)\s+<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(-?\d+)/;

/** Parses `strace -f` output, joining calls another thread interrupted (`<unfinished ...>` / `resumed>`). */
export function parseStrace(text: string): Syscall[] {
  const out: Syscall[] = [];
  const pending = new Map<string, string>();
  for (const line of text.split('\n')) {
    let m = DONE.exec(line);
    if (m) {
      out.push({ pid: Number(m[1]), call: m[2], args: m[3], result: Number(m[4]) });
      continue;
    }
    m = UNFINISHED.exec(line);
    if (m) {
      pending.set(`${m[1]} ${m[2]}`, m[3]);
      continue;
    }
    m = RESUMED.exec(line);
    if (m) {
      const head = pending.get(`${m[1]} ${m[2]}`) ?? '';
      pending.delete(`${m[1]} ${m[2]}`);
      out.push({ pid: Number(m[1]), call: m[2], args: head + m[3], result: Number(m[4]) });
    }
  }
  return out;
}

/**
 * Runs `code` (an ES module; project files are imported by absolute path, TypeScript through tsx)
 * under `strace -f` and returns its file-system calls in the order they completed.
 */
export function traceSyscalls(code: string, trace = TRACED): Promise<Syscall[]> {
  return traceProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { trace });
}

/**
 * The system calls of one exported function of a project module (`rel`: its path from the
 * repository root), called with JSON-serializable `args`.
 */
export function traceCall(rel: string, fn: string, ...args: unknown[]): Promise<Syscall[]> {
  return traceSyscalls(`const m = await import(${JSON.stringify(join(repoRoot, rel))}); await m[${JSON.stringify(fn)}](...${JSON.stringify(args)});`);
}

/** Runs a command under `strace -f` (it must exit 0) and returns its file-system calls (`trace`: which, strace's list). */
export async function traceProcess(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; trace?: string } = {}): Promise<Syscall[]> {
  const tmp = await tempDir('sf-strace-');
  try {
    const log = join(tmp.path, 'strace.log');
    const { trace = TRACED, ...spawnOptions } = options;
    const r = spawnSync('strace', ['-f', '-qq', '-e', `trace=${trace}`, '-o', log, command, ...args], { encoding: 'utf8', ...spawnOptions });
    if (r.error) throw new Error(`could not run strace (${r.error.message}); install it: apt-get install strace`);
    if (r.status !== 0) throw new Error(`the traced command failed (${r.status}): ${r.stderr}`);
    return parseStrace(readFileSync(log, 'utf8'));
  } finally {
    await tmp.cleanup();
  }
}

const quoted = (path: string) => `"${path}"`;
const pathArg = (args: string, n: number): string | undefined => [...args.matchAll(/"([^"]*)"/g)][n]?.[1];

/** Every successful fsync/fdatasync as (call number, the path its fd was opened on). */
function fsyncsOf(calls: Syscall[]): { at: number; path: string }[] {
  const open = new Map<number, string>();
  const out: { at: number; path: string }[] = [];
  calls.forEach((c, i) => {
    if (c.call === 'openat' && c.result >= 0) open.set(c.result, pathArg(c.args, 0) ?? '');
    else if (c.call === 'close') open.delete(Number(c.args));
    else if ((c.call === 'fsync' || c.call === 'fdatasync') && c.result === 0) out.push({ at: i, path: open.get(Number(c.args)) ?? '' });
  });
  return out;
}

/**
 * Asserts the durable replace of `target`: the file renamed onto it was fsynced (through an fd
 * opened on it) before the rename, and the directory was fsynced after it, so after a power cut
 * `target` is the old file or the complete new one, and a new name stays.
 */
export function assertDurableRename(calls: Syscall[], target: string): void {
  // the target is a later argument than the source in rename, renameat and renameat2
  const renamed = calls.findIndex((c) => c.call.startsWith('rename') && c.result === 0 && c.args.includes(`, ${quoted(target)}`));
  if (renamed < 0) throw new Error(`no successful rename to ${target}`);
  const source = pathArg(calls[renamed].args, 0)!;
  if (!fsyncsOf(calls).some((s) => s.at < renamed && s.path === source)) throw new Error(`${source} was renamed onto ${target} without an fsync of its data first`);
  assertDirSynced(calls, dirname(target), renamed, `the rename to ${target}`);
}

/** Asserts that `dir` was fsynced, through an fd opened on it, after call number `after`. */
export function assertDirSynced(calls: Syscall[], dir: string, after: number, what: string): void {
  if (!fsyncsOf(calls).some((s) => s.at > after && s.path === dir)) throw new Error(`${dir} was not fsynced after ${what}`);
}

/** The index of the first successful mkdir of `dir`, -1 when it was not created. */
export function mkdirIndex(calls: Syscall[], dir: string): number {
  return calls.findIndex((c) => (c.call === 'mkdir' || c.call === 'mkdirat') && c.result === 0 && c.args.includes(quoted(dir)));
}

/** The names a namespace call changes: a new file's, mkdir's and symlink's new name, rename's old and new names, an unlinked name. */
function changedNames(c: Syscall): string[] {
  // O_EXCL: a name that did not exist (an O_CREAT open may find an existing file)
  if (c.call === 'openat' && c.result >= 0 && c.args.includes('O_EXCL')) return [pathArg(c.args, 0)!];
  if (c.result !== 0) return [];
  if (c.call === 'mkdir' || c.call === 'mkdirat') return [pathArg(c.args, 0)!];
  if (c.call.startsWith('symlink')) return [pathArg(c.args, 1)!];
  if (c.call.startsWith('rename')) return [pathArg(c.args, 0)!, pathArg(c.args, 1)!];
  if (c.call === 'unlink' || c.call === 'unlinkat') return [pathArg(c.args, 0)!];
  return [];
}

/**
 * The names `calls` created, moved or deleted (directories, files, renamed entries, links) whose
 * directory was not fsynced afterwards through an fd opened on it: what a power cut could take back although
 * the command succeeded. `scratch` says which paths are temporary and may be lost.
 */
export function namesNotMadeDurable(calls: Syscall[], scratch: (path: string) => boolean): string[] {
  const syncs = fsyncsOf(calls);
  const out: string[] = [];
  calls.forEach((c, i) => {
    for (const name of changedNames(c)) {
      if (scratch(name)) continue;
      if (!syncs.some((s) => s.at > i && s.path === dirname(name))) out.push(`${c.call} ${name}`);
    }
  });
  return out;
}
