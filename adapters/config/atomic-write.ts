import { randomBytes } from 'node:crypto';
import { chmod, chown, lstat, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hasErrno } from '../../core/errors/index.js';

/** Mode for config files Forge creates from nothing (the host would create them like this too). */
export const NEW_FILE_MODE = 0o644;

/**
 * Resolves the file a write to `file` must replace: when the config is a symlink (dotfile
 * managers), the link target is replaced and the link survives.
 */
export async function resolveWriteTarget(file: string): Promise<string> {
  try {
    const st = await lstat(file);
    return st.isSymbolicLink() ? await realpath(file) : file;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return file;
    throw e;
  }
}

/** fsync a directory so a rename inside it survives a power cut (POSIX only). */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `file` atomically: temp file in the same directory, write + fsync, copy the old mode
 * (and owner when running as root), rename over the target, fsync the directory. On failure the
 * temp file is removed and the old file is untouched.
 */
export async function writeFileAtomic(file: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
  const target = await resolveWriteTarget(file);
  const dir = dirname(target);
  let mode = options.mode ?? NEW_FILE_MODE;
  let owner: { uid: number; gid: number } | undefined;
  try {
    const st = await stat(target);
    if (options.mode === undefined) mode = st.mode & 0o7777;
    owner = { uid: st.uid, gid: st.gid };
  } catch (e) {
    if (!hasErrno(e, 'ENOENT')) throw e;
  }
  const temp = join(dir, `.${basename(target)}.sf-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, mode);
    if (owner && process.getuid?.() === 0) await chown(temp, owner.uid, owner.gid);
    await rename(temp, target);
  } catch (e) {
    await unlink(temp).catch((cleanupError: unknown) => {
      if (!hasErrno(cleanupError, 'ENOENT')) throw cleanupError;
    });
    throw e;
  }
  await fsyncDir(dir);
}
