import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SfError, hasErrno, isSfError } from '../errors/index.js';
import { fsyncDirsSync, mkdirForDurable, removeTreeAtomic } from '../fs/atomic.js';
import { startNewFilesDurable, type NewFile } from '../fs/new-files.js';
import { trace } from '../trace/startup.js';
import type { InventoryFile, SkitHashes } from '../skit/hash.js';
import { bundleHex, type SfPaths } from './paths.js';
import { changedPaths, diffTree, type ExpectedFile } from './tree-diff.js';

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

/** Reads a source file and checks that it still has the bytes that were hashed. */
function readVerified(sourceRoot: string, f: InventoryFile): Buffer {
  const bytes = readFileSync(abs(sourceRoot, f.path));
  if (createHash('sha256').update(bytes).digest('hex') !== f.sha256) {
    throw new SfError('SF_E_HASH_MISMATCH', `${f.path} changed while it was being installed`, {
      location: { file: f.path },
      hint: 'make sure nothing is editing the source, then run the command again',
    });
  }
  return bytes;
}

/** True when the store holds a complete entry for `bundleHash` (its manifest is written last). */
export async function hasStoreEntry(paths: SfPaths, bundleHash: string): Promise<boolean> {
  try {
    statSync(manifestPath(paths, bundleHash));
    return true;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return false;
    throw e;
  }
}

/** An entry already in the store whose files differ from the release it is named for. */
export interface ModifiedEntry {
  /** store/<hex> */
  entry: string;
  /** what differs, relative to the entry (skills/review/NOTES.md, ...) */
  changed: string[];
  /** where publish moved it ($SF_HOME/backups/store/<hex>.<time>.<random>), once it has */
  keptAt?: string;
}

/** A store entry being written into staging: not visible in the store until `publish`. */
export interface StagedEntry {
  /**
   * Waits for every file to be durable, then renames the entry into the store (atomic) and fsyncs
   * the store directory. With `replaces`, the modified entry is first renamed aside (kept).
   */
  publish(): Promise<'created' | 'existing' | 'replaced'>;
  /** Deletes the staging copy (after a failure, or when publish was not reached). */
  discard(): Promise<void>;
  /** the store held a modified entry for this bundle, which publish replaces */
  replaces?: ModifiedEntry;
}

/**
 * Starts storing the release found at `sourceRoot` (hashed as `hashes`): reads and checks every
 * source file against `hashes` (SF_E_HASH_MISMATCH when one changed), writes the entry into
 * `store/.staging/` and starts its fsyncs, then returns, so the caller can record its journal
 * intent while the disk catches up. Null when the store already holds the entry intact. An entry
 * that differs from `hashes` (edited through a linked skill directory in some project) is not
 * reused: a clean one is staged to replace it (`replaces`). Staging is scratch: nothing is visible
 * until `publish`, and recovery deletes what a crash leaves there.
 */
export async function stageStoreEntry(paths: SfPaths, sourceRoot: string, hashes: SkitHashes): Promise<StagedEntry | null> {
  let replaces: ModifiedEntry | undefined;
  if (await hasStoreEntry(paths, hashes.bundle)) {
    // only reuse pays for this check: a new entry is written from the verified source
    const changed = await entryChanges(paths, hashes);
    if (changed.length === 0) return null;
    replaces = { entry: storeEntryDir(paths, hashes.bundle), changed };
  }
  const staging = join(paths.storeStaging, `${bundleHex(hashes.bundle)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  let discarded = false;
  const discard = async () => {
    if (discarded) return;
    discarded = true;
    await rm(staging, { recursive: true, force: true });
  };
  let synced: Promise<void>;
  try {
    // a name is durable only with its directory: the store's own directories on first use, and
    // every directory of the entry once all its names exist, are fsynced after the files
    const storeDirs = mkdirForDurable(paths.storeStaging);
    const files = entryFiles(staging, sourceRoot, hashes);
    const entryDirs = directoriesWithin(staging, [...files.map((f) => dirname(f.path)), ...hashes.skills.map((s) => join(staging, 'skills', s.name))]);
    synced = startNewFilesDurable(files).then(() => fsyncDirsSync([...storeDirs, ...entryDirs]));
  } catch (e) {
    await discard();
    throw e;
  }
  // publish() awaits it; until then a failure must not count as an unhandled rejection
  synced.catch(() => undefined);
  trace('store: entry staged, fsyncs started');
  const publish = async (): Promise<'created' | 'existing' | 'replaced'> => {
    try {
      await synced;
      trace('store: entry files fsynced');
      // a few metadata calls in a row: synchronous, without a thread-pool round trip each
      const keptDirs = replaces ? moveAside(paths, replaces) : [];
      try {
        renameSync(staging, storeEntryDir(paths, hashes.bundle));
        // the staging copy is the store entry now: nothing is left to discard
        discarded = true;
      } catch (e) {
        // another process stored the same bundle first: content-addressed, so theirs is ours
        if (hasErrno(e, 'ENOTEMPTY') || hasErrno(e, 'EEXIST')) return 'existing';
        throw e;
      }
      fsyncDirsSync([paths.store, ...keptDirs]);
      return replaces ? 'replaced' : 'created';
    } finally {
      await discard();
    }
  };
  return { publish, discard, ...(replaces ? { replaces } : {}) };
}

/**
 * Renames a modified entry out of the store into $SF_HOME/backups/store/, where nothing deletes
 * it: the edits in it are someone's (made through a linked skill directory). Returns the
 * directories to fsync. Between this rename and the clean entry's the bundle has no entry; a
 * crash there leaves it missing (as after a deletion: `sf skit doctor --fix` fetches it again).
 */
function moveAside(paths: SfPaths, modified: ModifiedEntry): string[] {
  const kept = join(paths.backups, 'store');
  const dirs = [...mkdirForDurable(kept), kept];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  modified.keptAt = join(kept, `${basename(modified.entry)}.${stamp}.${randomBytes(4).toString('hex')}`);
  renameSync(modified.entry, modified.keptAt);
  return dirs;
}

/**
 * What an existing entry holds that the release does not: files of its release tree and skill
 * projections that differ from `hashes` (added, edited, missing), and a manifest that does not
 * list exactly `hashes`. Paths are relative to the entry.
 */
async function entryChanges(paths: SfPaths, hashes: SkitHashes): Promise<string[]> {
  const expected: ExpectedFile[] = [
    ...hashes.files.map((f) => ({ ...f, path: `release/${f.path}` })),
    ...hashes.skills.flatMap((k) => k.files.map((f) => ({ ...f, path: `skills/${k.name}/${f.path}` }))),
  ];
  const changed = changedPaths(await diffTree(storeEntryDir(paths, hashes.bundle), expected)).filter((p) => p !== 'manifest.json');
  const manifest = await readStoreManifest(paths, hashes.bundle).catch((e: unknown) => {
    // a manifest that does not parse is a change like any other
    if (isSfError(e, 'SF_E_LIBRARY')) return null;
    throw e;
  });
  if (!manifest || listing(manifest) !== listing(manifestOf(hashes))) changed.push('manifest.json');
  return changed;
}

/** What a manifest lists, without what may differ for the same bundle (the id a provisional install gave it). */
function listing(m: Pick<StoreManifest, 'files' | 'skills'>): string {
  const files = (fs: readonly InventoryFile[]) => fs.map((f) => [f.path, f.mode, f.sha256]);
  return JSON.stringify([files(m.files), m.skills.map((k) => [k.name, k.hash, files(k.files)])]);
}

/** The manifest of an entry of `hashes`. */
function manifestOf(hashes: SkitHashes): StoreManifest {
  return {
    schema: 1,
    skitId: hashes.id,
    bundleHash: hashes.bundle,
    files: hashes.files,
    skills: hashes.skills.map((s) => ({ name: s.name, hash: s.hash, files: s.files })),
  };
}

/**
 * Stores the release found at `sourceRoot` (hashed as `hashes`) unless the store already has it
 * intact (a modified entry is replaced, see stageStoreEntry). Every byte is checked against
 * `hashes` while copying. Returns whether a new entry was created.
 */
export async function ensureStored(paths: SfPaths, sourceRoot: string, hashes: SkitHashes): Promise<'created' | 'existing' | 'replaced'> {
  const staged = await stageStoreEntry(paths, sourceRoot, hashes);
  return staged ? staged.publish() : 'existing';
}

/** `dirs` and each of their ancestors up to `root` (inclusive); all of them are below `root`. */
function directoriesWithin(root: string, dirs: readonly string[]): Set<string> {
  const out = new Set<string>([root]);
  for (const dir of dirs) for (let d = dir; d !== root && !out.has(d) && d !== dirname(d); d = dirname(d)) out.add(d);
  return out;
}

/** Every file of a store entry below `staging`: the release, each skill's projection, the manifest. */
function entryFiles(staging: string, sourceRoot: string, hashes: SkitHashes): NewFile[] {
  const bytes = new Map<string, Buffer>();
  const files: NewFile[] = [];
  for (const f of hashes.files) {
    const data = readVerified(sourceRoot, f);
    bytes.set(f.path, data);
    files.push({ path: abs(join(staging, 'release'), f.path), bytes: data, mode: fileMode(f.mode) });
  }
  for (const skill of hashes.skills) {
    const skillRoot = join(staging, 'skills', skill.name);
    // a skill without files still gets its (empty) directory
    mkdirSync(skillRoot, { recursive: true });
    for (const f of skill.files) {
      const from = f.from ?? (skill.path === '' ? f.path : `${skill.path}/${f.path}`);
      const data = bytes.get(from.normalize('NFC')) ?? bytes.get(from);
      if (!data) throw new SfError('SF_E_INTERNAL', `skill ${skill.name}: ${from} is not among the hashed files`);
      files.push({ path: abs(skillRoot, f.path), bytes: data, mode: fileMode(f.mode) });
    }
  }
  files.push({ path: join(staging, 'manifest.json'), bytes: Buffer.from(JSON.stringify(manifestOf(hashes))), mode: 0o644 });
  return files;
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
