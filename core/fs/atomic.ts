import { randomBytes } from 'node:crypto';
import { close, closeSync, fchmod, fchown, fstatSync, fsync, fsyncSync, mkdirSync, open, openSync, readSync, write, writeSync } from 'node:fs';
import { lstat, open as openAsync, readlink, realpath, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { hasErrno } from '../errors/index.js';

/**
 * Crash-safe file primitives: write-temp-fsync-rename, durable renames and appends. An interrupted
 * write leaves either the old or the new bytes, never a torn file (reliability-anchors.md §2.1).
 */

const fsyncFd = promisify(fsync);
const closeFd = promisify(close);
const openFd = promisify(open);
const writeFd = promisify(write);
const fchmodFd = promisify(fchmod);
const fchownFd = promisify(fchown);

/** A sibling temp name unique to this process and call, so concurrent writers never share one. */
export function tempSibling(path: string, tag = 'tmp'): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.${tag}`);
}

/**
 * fsync a directory so a rename or create inside it survives a power cut. POSIX only: Windows
 * cannot open directories, and its renames are already metadata-journaled.
 */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const fh = await openAsync(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** fsyncDir for callers that work synchronously (a few metadata calls in a row cost less without the thread-pool round trips). */
export function fsyncDirSync(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file a write to `path` must replace: the target of a symlink (dotfile managers keep the link). */
export async function resolveWriteTarget(path: string): Promise<string> {
  try {
    const st = await lstat(path);
    if (!st.isSymbolicLink()) return path;
    return await realpath(path).catch(async (e: unknown) => {
      // a dangling link: write where it points, so the link becomes valid
      if (!hasErrno(e, 'ENOENT')) throw e;
      const target = await readlink(path);
      return isAbsolute(target) ? target : resolve(dirname(path), target);
    });
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return path;
    throw e;
  }
}

export interface AtomicWriteOptions {
  /** file mode; default: the existing file's mode, else 0o644 */
  mode?: number;
}

/**
 * Replaces `path` with `data` atomically: write a temp sibling, fsync it, rename it over the
 * target, fsync the directory (and the parents of directories it had to create). A symlinked
 * target is replaced where it points and the link kept. The old file's mode is kept exactly
 * (umask does not apply), and its owner too when running as root, so editing a user's config
 * under sudo does not hand it to root.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const target = await resolveWriteTarget(path);
  mkdirDurableSync(dirname(target));
  const old = await stat(target).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e)));
  const mode = options.mode ?? (old ? old.mode & 0o7777 : 0o644);
  const tmp = tempSibling(target);
  let fd: number | undefined;
  try {
    fd = await openFd(tmp, 'wx', mode);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let offset = 0;
    while (offset < bytes.length) offset += (await writeFd(fd, bytes, offset, bytes.length - offset)).bytesWritten;
    await fchmodFd(fd, mode);
    if (old && process.getuid?.() === 0) await fchownFd(fd, old.uid, old.gid);
    await fsyncFd(fd);
    await closeFd(fd);
    fd = undefined;
    await rename(tmp, target);
  } catch (e) {
    // cleanup is best effort: the write's own error is the one to report
    if (fd !== undefined) await closeFd(fd).catch(() => undefined);
    await unlink(tmp).catch((u: unknown) => (hasErrno(u, 'ENOENT') ? undefined : Promise.reject(e)));
    // report the file being written, not only its temporary sibling (the message keeps both)
    if (typeof e === 'object' && e !== null && (e as NodeJS.ErrnoException).path === tmp) (e as NodeJS.ErrnoException).path = target;
    throw e;
  }
  await fsyncDir(dirname(target));
}

/**
 * `mkdir -p dir`, returning the directories to fsync so that the new ones keep their names
 * through a power cut (a directory's name lives in its parent): for callers that fsync them
 * together with others. Empty when `dir` existed.
 */
export function mkdirForDurable(dir: string, mode?: number): string[] {
  const made = mkdirSync(dir, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  const parents: string[] = [];
  if (made) for (let d = dir; d !== dirname(made); d = dirname(d)) parents.push(dirname(d));
  return parents;
}

/**
 * fsyncDirSync of several directories, one after the other in this thread: measured on an
 * install, a dozen directory fsyncs cost nothing visible this way (the files' fsyncs already
 * committed the journal), and about 3 ms as parallel thread-pool calls.
 */
export function fsyncDirsSync(dirs: Iterable<string>): void {
  for (const dir of dirs) fsyncDirSync(dir);
}

/** `mkdir -p` whose new directories survive a power cut: the parent of each directory it created is fsynced. */
export function mkdirDurableSync(dir: string, mode?: number): void {
  fsyncDirsSync(mkdirForDurable(dir, mode));
}

/**
 * Deletes a file so that it stays deleted through a power cut: unlink, then fsync the directory.
 * Absent is fine (false).
 */
export async function removeFileDurable(path: string): Promise<boolean> {
  try {
    await unlink(path);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return false;
    throw e;
  }
  await fsyncDir(dirname(path));
  return true;
}

/** rename + fsync of both parent directories. */
export async function renameDurable(from: string, to: string): Promise<void> {
  await rename(from, to);
  await fsyncDir(dirname(to));
  if (dirname(from) !== dirname(to)) await fsyncDir(dirname(from));
}

/**
 * Appends `lines` to an append-only log with one write call in append mode and one fsync, so
 * concurrent appenders never interleave within a line (up to PIPE_BUF on local filesystems, and in
 * practice for small records). When this creates the log, its directory is fsynced too, so the new
 * file's name is as durable as its lines. Synchronous: a few small calls in a row cost less than
 * their thread-pool round trips, and the caller waits for the fsync either way.
 */
export function appendLinesDurableSync(path: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const dir = dirname(path);
  mkdirDurableSync(dir);
  let created = true;
  let fd: number;
  try {
    fd = openSync(path, 'ax+', 0o600);
  } catch (e) {
    if (!hasErrno(e, 'EEXIST')) throw e;
    created = false;
    fd = openSync(path, 'a+', 0o600);
  }
  try {
    // a crash mid-append can leave a torn last line; start on a fresh line so only that one is lost
    let text = created ? '' : leadFor(fd);
    for (const line of lines) text += line.endsWith('\n') ? line : `${line}\n`;
    const bytes = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (created) fsyncDirSync(dir);
}

/** '\n' when the file open at `fd` ends without one (a torn last line), else ''. */
function leadFor(fd: number): string {
  const { size } = fstatSync(fd);
  if (size === 0) return '';
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a ? '' : '\n';
}

/** fsync one file by path. */
export async function fsyncFile(path: string): Promise<void> {
  const fh = await openAsync(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Removes a directory tree so that a crash never leaves a half-deleted tree at `path`: the tree
 * is renamed to `trashPath` first (atomic), then deleted.
 */
export async function removeTreeAtomic(path: string, trashPath: string): Promise<void> {
  try {
    await rename(path, trashPath);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return;
    throw e;
  }
  await fsyncDir(dirname(path));
  await rm(trashPath, { recursive: true, force: true });
}
