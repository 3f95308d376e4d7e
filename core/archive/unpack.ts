import { chmod, lstat, mkdtemp, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';
import type { ModeClass } from '../skit/tree.js';
import { DIR_MODE, DiskSink } from './disk-sink.js';
import { readArchive, type ArchiveInput, type ReadArchiveOptions } from './read.js';
import { stripWrapper, wrapperToStrip, type StripOption } from './strip.js';
import type { ArchiveFormat } from './types.js';

export interface UnpackOptions extends ReadArchiveOptions {
  /** strip a single top-level wrapper directory: 0 (default), 1 (required), or 'auto' */
  strip?: StripOption;
}

export interface UnpackedFile {
  /** safe relative path below the destination, forward slashes */
  path: string;
  /** mode class; written as 0644 ('file') or 0755 ('exec') */
  mode: ModeClass;
  size: number;
}

export interface UnpackResult {
  format: ArchiveFormat;
  /** files in archive order */
  files: UnpackedFile[];
  /** the wrapper directory that was stripped, if any */
  stripped: string | null;
}

async function assertDestinationFree(dest: string): Promise<void> {
  try {
    await lstat(dest);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return;
    throw e;
  }
  throw new SfError('SF_E_CONFLICT', `the unpack destination already exists: ${dest}`, {
    location: { file: dest },
    hint: 'unpack into a path that does not exist yet; it is created by the final rename',
  });
}

async function assertParentDirectory(parent: string): Promise<void> {
  const st = await lstat(parent).catch((e: unknown) => {
    if (hasErrno(e, 'ENOENT')) return null;
    throw e;
  });
  if (st === null || !st.isDirectory()) {
    throw new SfError('SF_E_NOT_FOUND', `the parent of the unpack destination is not a directory: ${parent}`, {
      location: { file: parent },
      hint: 'create the parent directory first',
    });
  }
}

/**
 * Safely unpacks a .tar, .tar.gz/.tgz or .zip (detected by magic bytes) into `destDir`, which must
 * not exist yet. Everything is written into a private staging directory (mkdtemp, mode 0700) next
 * to `destDir`, and one rename moves the finished tree into place. On any refusal or failure the
 * staging directory is removed and nothing exists at `destDir`.
 *
 * @example const { files } = await unpackArchive('release.tgz', '/tmp/x/release', { strip: 'auto' })
 */
export async function unpackArchive(input: ArchiveInput, destDir: string, options: UnpackOptions = {}): Promise<UnpackResult> {
  const dest = resolve(destDir);
  const parent = dirname(dest);
  await assertParentDirectory(parent);
  await assertDestinationFree(dest);
  const staging = await mkdtemp(join(parent, `.${basename(dest)}.sf-unpack-`));
  try {
    const sink = new DiskSink(staging);
    const { format, entries } = await readArchive(input, sink, options);
    const wrapper = wrapperToStrip(entries, options.strip ?? 0);
    await sink.normalizeDirectories();
    const root = wrapper === null ? staging : join(staging, wrapper);
    await chmod(root, DIR_MODE);
    await assertDestinationFree(dest);
    try {
      await rename(root, dest);
    } catch (e) {
      if (hasErrno(e, 'EEXIST') || hasErrno(e, 'ENOTEMPTY')) await assertDestinationFree(dest);
      throw e;
    }
    const files = entries
      .filter((e) => e.kind === 'file')
      .map((e) => ({ path: stripWrapper(e.path, wrapper), mode: e.mode, size: e.size }));
    return { format, files, stripped: wrapper };
  } finally {
    // after a successful rename this removes only the empty shell left by a stripped wrapper
    await rm(staging, { recursive: true, force: true });
  }
}
