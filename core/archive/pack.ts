import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { pack as createPack } from 'tar-stream';
import { SfError, isSfError } from '../errors/index.js';
import { checkRelativePath, findCollisions, PATH_PROBLEM_TEXT } from '../skit/safe-path.js';
import { compareCodeUnits, type ModeClass, type TreeFile } from '../skit/tree.js';
import { gzipDeterministic } from './gzip.js';
import { resolveArchiveLimits, type ArchiveLimits } from './limits.js';
import { FILE_MODE } from './disk-sink.js';
import { readArchive } from './read.js';
import type { EntrySink } from './types.js';

/** Fixed mtime of every entry: the Unix epoch, so the bytes do not depend on when or where we pack. */
export const PACK_MTIME = new Date(0);

export interface PackOptions {
  /** the same limits unpack applies; pack refuses what unpack would refuse */
  limits?: Partial<ArchiveLimits>;
}

export interface PackInput {
  path: string;
  mode: ModeClass;
}

async function readRegularFile(abs: string, rel: string): Promise<Buffer> {
  const handle = await open(abs, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)).catch((e: unknown) => {
    throw new SfError('SF_E_IO', `could not read ${rel} for packing: ${(e as Error).message}`, {
      location: { file: rel },
      hint: 'the tree changed while packing, or the file is a symlink; re-run after fixing it',
      cause: e,
    });
  });
  try {
    if (!(await handle.stat()).isFile()) {
      throw new SfError('SF_E_UNSAFE_PATH', `${rel} is not a regular file`, { location: { file: rel }, hint: 'only regular files can be packed' });
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function limitError(message: string, limit: string, file?: string): SfError {
  return new SfError('SF_E_ARCHIVE_LIMIT', message, {
    location: file ? { file } : undefined,
    hint: 'the archive would be refused on unpack; make the SKIT smaller or split it',
    data: { limit },
  });
}

/** Checks names and sorts them the way walkTree does (code-unit order), whatever order we got. */
function planEntries(files: readonly PackInput[], limits: ArchiveLimits): PackInput[] {
  for (const f of files) {
    const problem = checkRelativePath(f.path);
    if (problem !== null || f.path.endsWith('/')) {
      throw new SfError('SF_E_UNSAFE_PATH', `cannot pack "${f.path}": ${problem ? PATH_PROBLEM_TEXT[problem] : 'it names a directory'}`, {
        location: { file: f.path },
        hint: 'rename the file to a portable relative path',
      });
    }
  }
  const [collision] = findCollisions(files.map((f) => f.path));
  if (collision) {
    throw new SfError('SF_E_PATH_COLLISION', `cannot pack "${collision.second}": it collides with "${collision.first}" (${collision.kind})`, {
      location: { file: collision.second },
      hint: 'rename one of the files so names differ in more than case or Unicode normalization',
    });
  }
  if (files.length > limits.maxEntries) throw limitError(`${files.length} files exceed the limit of ${limits.maxEntries} entries`, 'maxEntries');
  return [...files].sort((a, b) => compareCodeUnits(a.path.normalize('NFC'), b.path.normalize('NFC')));
}

/**
 * The deterministic, uncompressed tar of `files` below `root`: names in Unicode NFC (a macOS NFD
 * tree packs like its Linux twin) sorted in code-unit order, no directory entries, mtime 0, uid/gid 0, empty uname/gname, modes 0644/0755, ustar
 * headers (a pax `path` record only when a name is non-ASCII or does not fit ustar's 100+155
 * bytes; tar-stream then names the header "PaxHeader"), two zero blocks at the end.
 */
export async function packTreeTar(root: string, files: readonly PackInput[], options: PackOptions = {}): Promise<Buffer> {
  const limits = resolveArchiveLimits(options.limits);
  const entries = planEntries(files, limits);
  const tar = createPack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of tar) chunks.push(chunk as Buffer);
  })();
  let total = 0;
  try {
    for (const f of entries) {
      const data = await readRegularFile(join(root, ...f.path.split('/')), f.path);
      if (data.length > limits.maxEntrySize) throw limitError(`${f.path} is ${data.length} bytes, over the per-file limit of ${limits.maxEntrySize}`, 'maxEntrySize', f.path);
      total += data.length;
      if (total > limits.maxTotalSize) throw limitError(`the files exceed the total limit of ${limits.maxTotalSize} bytes`, 'maxTotalSize', f.path);
      await new Promise<void>((resolve, reject) => {
        tar.entry(
          { name: f.path.normalize('NFC'), type: 'file', size: data.length, mode: FILE_MODE[f.mode], mtime: PACK_MTIME, uid: 0, gid: 0, uname: '', gname: '' },
          data,
          (err) => (err ? reject(err) : resolve()),
        );
      });
    }
    tar.finalize();
  } catch (e) {
    tar.destroy(e as Error);
    await Promise.allSettled([collected]); // settles with the error just given to destroy()
    throw e;
  }
  await collected;
  return Buffer.concat(chunks);
}

/**
 * Packs `files` (typically `walkTree(root).files`) into a deterministic .tgz: the tar of
 * `packTreeTar`, gzipped with a fixed header and level (see gzip.ts). The same tree gives the
 * same bytes on every machine, whatever its mtimes, owners, umask or creation order. The result
 * is read back through `readArchive` with the same limits, so it always unpacks.
 */
export async function packTree(root: string, files: readonly (TreeFile | PackInput)[], options: PackOptions = {}): Promise<Buffer> {
  const tgz = gzipDeterministic(await packTreeTar(root, files, options));
  // read it back with the unpacker's own checks: pack never produces what unpack would refuse
  // (e.g. a very repetitive file that trips the compression-ratio limit)
  try {
    await readArchive(tgz, DISCARD, options);
  } catch (e) {
    if (!isSfError(e)) throw e;
    throw new SfError(e.code, `the packed archive would be refused when unpacked: ${e.message}`, {
      location: e.location,
      hint: 'make the SKIT smaller or less repetitive (e.g. drop generated or padded files), or raise the limits for pack and unpack alike',
      data: e.data,
      cause: e,
    });
  }
  return tgz;
}

/** A sink that reads and drops entry data, for verifying an archive. */
const DISCARD: EntrySink = {
  directory: async () => undefined,
  file: async (_entry, data) => {
    for await (const chunk of data) void chunk;
  },
};
