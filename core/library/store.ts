import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rm, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';
import { fsyncDir, removeTreeAtomic } from '../fs/atomic.js';
import type { InventoryFile, SkitHashes } from '../skit/hash.js';
import { bundleHex, type SfPaths } from './paths.js';

/**
 * The content-addressed store: `$SF_HOME/store/<bundle hex>/` holds one complete release
 * (`release/`), the projection of every contained skill exactly as a host must see it
 * (`skills/<name>/`: own files + shared mappings materialized) and `manifest.json` (every file's
 * hash). An entry is built in `store/.staging/` and renamed into place, so it is either complete
 * or absent; entries are immutable afterwards and shared by every installation of that bundle.
 */

export interface StoreManifest {
  schema: 1;
  skitId: string;
  bundleHash: string;
  files: InventoryFile[];
  skills: { name: string; hash: string; files: InventoryFile[] }[];
}

export const storeEntryDir = (paths: SfPaths, bundleHash: string): string => join(paths.store, bundleHex(bundleHash));
export const storeReleaseDir = (paths: SfPaths, bundleHash: string): string => join(storeEntryDir(paths, bundleHash), 'release');
export const storeSkillDir = (paths: SfPaths, bundleHash: string, skill: string): string => join(storeEntryDir(paths, bundleHash), 'skills', skill);
const manifestPath = (paths: SfPaths, bundleHash: string) => join(storeEntryDir(paths, bundleHash), 'manifest.json');

const fileMode = (mode: InventoryFile['mode']) => (mode === 'exec' ? 0o755 : 0o644);
const abs = (root: string, rel: string) => join(root, ...rel.split('/'));

/** Writes `bytes` to a new file and fsyncs it. */
async function writeNew(path: string, bytes: Buffer, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const fh = await open(path, 'wx', mode);
  try {
    await fh.writeFile(bytes);
    await fh.chmod(mode);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Reads a source file and checks that it still has the bytes that were hashed. */
async function readVerified(sourceRoot: string, f: InventoryFile): Promise<Buffer> {
  const bytes = await readFile(abs(sourceRoot, f.path));
  if (createHash('sha256').update(bytes).digest('hex') !== f.sha256) {
    throw new SfError('SF_E_HASH_MISMATCH', `${f.path} changed while it was being installed`, {
      location: { file: f.path },
      hint: 'make sure nothing is editing the source, then run the command again',
    });
  }
  return bytes;
}

/** True when the store holds a complete entry for `bundleHash`. */
export async function hasStoreEntry(paths: SfPaths, bundleHash: string): Promise<boolean> {
  try {
    await readFile(manifestPath(paths, bundleHash));
    return true;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return false;
    throw e;
  }
}

/**
 * Stores the release found at `sourceRoot` (hashed as `hashes`) unless the store already has it.
 * Every byte is checked against `hashes` while copying. Returns whether a new entry was created.
 */
export async function ensureStored(paths: SfPaths, sourceRoot: string, hashes: SkitHashes): Promise<'created' | 'existing'> {
  if (await hasStoreEntry(paths, hashes.bundle)) return 'existing';
  const staging = join(paths.storeStaging, `${bundleHex(hashes.bundle)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    const bytes = new Map<string, Buffer>();
    await Promise.all(
      hashes.files.map(async (f) => {
        const data = await readVerified(sourceRoot, f);
        bytes.set(f.path, data);
        await writeNew(abs(join(staging, 'release'), f.path), data, fileMode(f.mode));
      }),
    );
    for (const skill of hashes.skills) {
      const skillRoot = join(staging, 'skills', skill.name);
      await mkdir(skillRoot, { recursive: true });
      await Promise.all(
        skill.files.map((f) => {
          const from = f.from ?? (skill.path === '' ? f.path : `${skill.path}/${f.path}`);
          const data = bytes.get(from.normalize('NFC')) ?? bytes.get(from);
          if (!data) throw new SfError('SF_E_INTERNAL', `skill ${skill.name}: ${from} is not among the hashed files`);
          return writeNew(abs(skillRoot, f.path), data, fileMode(f.mode));
        }),
      );
    }
    const manifest: StoreManifest = {
      schema: 1,
      skitId: hashes.id,
      bundleHash: hashes.bundle,
      files: hashes.files,
      skills: hashes.skills.map((s) => ({ name: s.name, hash: s.hash, files: s.files })),
    };
    await writeNew(join(staging, 'manifest.json'), Buffer.from(JSON.stringify(manifest)), 0o644);
    await fsyncDir(staging);
    await mkdir(paths.store, { recursive: true });
    try {
      await rename(staging, storeEntryDir(paths, hashes.bundle));
    } catch (e) {
      // another process stored the same bundle first: content-addressed, so theirs is ours
      if (hasErrno(e, 'ENOTEMPTY') || hasErrno(e, 'EEXIST')) return 'existing';
      throw e;
    }
    await fsyncDir(paths.store);
    return 'created';
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Reads the manifest of a store entry (null when the entry is missing). */
export async function readStoreManifest(paths: SfPaths, bundleHash: string): Promise<StoreManifest | null> {
  try {
    return JSON.parse(await readFile(manifestPath(paths, bundleHash), 'utf8')) as StoreManifest;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return null;
    if (e instanceof SyntaxError) throw new SfError('SF_E_LIBRARY', `the store manifest of ${bundleHash} is corrupt`, { hint: 'run `sf skit doctor --fix`' });
    throw e;
  }
}

/** Deletes a store entry without ever leaving a half-deleted entry under its real name. */
export async function removeStoreEntry(paths: SfPaths, bundleHash: string): Promise<void> {
  await mkdir(paths.storeStaging, { recursive: true });
  await removeTreeAtomic(storeEntryDir(paths, bundleHash), join(paths.storeStaging, `trash-${bundleHex(bundleHash)}.${randomBytes(4).toString('hex')}`));
}
