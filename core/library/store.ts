import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync, symlinkSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SfError, diskFullAt, hasErrno, isSfError } from '../errors/index.js';
import { fsyncDirsSync, mkdirForDurable, removeTreeAtomic } from '../fs/atomic.js';
import { startNewFilesDurable, type NewFile } from '../fs/new-files.js';
import { trace } from '../trace/startup.js';
import { digestListing, type InventoryFile, type SkitHashes } from '../skit/hash.js';
import { bundleHex, type SfPaths } from './paths.js';
import { readVerified, SourceNames } from './source-read.js';
import { allChanged, BOOKKEEPING, compareEntry, onDisk, readStamp, stamped, writeStamp, type Listing } from './store-compare.js';

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
  /**
   * where publish kept what differed ($SF_HOME/backups/store/<hex>.<change digest>: only the
   * changed and added files), once it has; none when nothing differed any more by then
   */
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
    throw inSfHome(paths, e);
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
      if (!replaces) return 'created';
      await keepChangesOnly(paths, replaces, manifestOf(hashes));
      return 'replaced';
    } catch (e) {
      throw inSfHome(paths, e);
    } finally {
      await discard();
    }
  };
  return { publish, discard, ...(replaces ? { replaces } : {}) };
}

/** A full disk met while storing a release names $SF_HOME, which may be on another filesystem than the project. */
const inSfHome = (paths: SfPaths, e: unknown) => diskFullAt(e, `$SF_HOME (${paths.home})`, paths.home) ?? e;

/**
 * Renames a modified entry out of the store into $SF_HOME/backups/store/, where nothing deletes
 * it: the edits in it are someone's (made through a linked skill directory). Returns the
 * directories to fsync. Between this rename and the clean entry's the bundle has no entry; a
 * crash there leaves it missing (as after a deletion: `sf skit doctor --fix` fetches it again).
 */
function moveAside(paths: SfPaths, modified: ModifiedEntry): string[] {
  const kept = backupsStore(paths);
  const dirs = [...mkdirForDurable(kept), kept];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  modified.keptAt = join(kept, `${basename(modified.entry)}.${stamp}.${randomBytes(4).toString('hex')}`);
  renameSync(modified.entry, modified.keptAt);
  return dirs;
}

const backupsStore = (paths: SfPaths) => join(paths.backups, 'store');

/**
 * Replaces the full copy `moveAside` kept with one of only what differs from `listing` (modified
 * and added files, with CHANGES.json naming the missing ones too), named by a digest of those
 * changes: a big release costs a backup of the edits, not of itself, and the same change replaced
 * by several installs is kept once. The full copy is deleted only once that copy is durable; a
 * crash before leaves the full copy (doctor reports backups/store).
 */
async function keepChangesOnly(paths: SfPaths, modified: ModifiedEntry, listing: Listing): Promise<void> {
  const full = modified.keptAt!;
  const { diff } = await compareEntry(full, listing, '');
  // what differs now (a manifest that differed is rebuilt, not kept: it is Forge's own)
  const edits = allChanged(diff);
  modified.changed = [...edits, ...modified.changed.filter((p) => BOOKKEEPING.has(p))].sort();
  const copies = [...diff.modified, ...diff.added].map((path) => changedCopy(full, path)).filter((c) => c !== null);
  const summary = { modified: diff.modified, added: diff.added, missing: diff.missing };
  const digest = createHash('sha256').update(JSON.stringify([summary, copies.map((c) => [c.path, c.sha256])])).digest('hex');
  const kept = join(dirname(full), `${basename(modified.entry)}.${digest.slice(0, 16)}`);
  if (edits.length > 0 && !existsSync(kept)) {
    const tmp = join(paths.storeStaging, `backup-${digest.slice(0, 16)}.${randomBytes(4).toString('hex')}`);
    const files: NewFile[] = copies.filter((c) => c.bytes).map((c) => ({ path: abs(tmp, c.path), bytes: c.bytes!, mode: c.mode }));
    files.push({ path: join(tmp, 'CHANGES.json'), bytes: Buffer.from(JSON.stringify(summary, null, 2) + '\n'), mode: 0o644 });
    await startNewFilesDurable(files);
    for (const c of copies) {
      if (c.link === undefined) continue;
      mkdirSync(dirname(abs(tmp, c.path)), { recursive: true });
      symlinkSync(c.link, abs(tmp, c.path));
    }
    fsyncDirsSync(directoriesWithin(tmp, copies.map((c) => dirname(abs(tmp, c.path)))));
    try {
      renameSync(tmp, kept);
      fsyncDirsSync([dirname(kept)]);
    } catch (e) {
      // another install kept the same change first
      if (!hasErrno(e, 'ENOTEMPTY') && !hasErrno(e, 'EEXIST')) throw e;
      await rm(tmp, { recursive: true, force: true });
    }
  }
  modified.keptAt = edits.length > 0 ? kept : undefined;
  await removeTreeAtomic(full, join(paths.storeStaging, `trash-${basename(full)}`));
}

/** A changed or added file of a kept entry as the backup holds it (null: not a file or link). */
function changedCopy(root: string, path: string): { path: string; sha256: string; bytes?: Buffer; mode: number; link?: string } | null {
  const at = abs(root, path);
  const st = lstatSync(at);
  if (st.isSymbolicLink()) {
    const link = readlinkSync(at);
    return { path, sha256: `link:${link}`, link, mode: 0 };
  }
  if (!st.isFile()) return null;
  const bytes = readFileSync(at);
  return { path, sha256: createHash('sha256').update(bytes).digest('hex'), bytes, mode: st.mode & 0o111 ? 0o755 : 0o644 };
}

/**
 * What an existing entry exposes that the release does not: files of its skill projections (what
 * links lead to) that differ from `hashes` (added, edited, missing; caches aside), and a
 * manifest that does not list exactly `hashes`. The release tree is not linked anywhere, so reuse
 * leaves it to doctor. Paths are relative to the entry. An intact entry is stamped, so the next
 * reuse reads no file whose sig is unchanged.
 */
async function entryChanges(paths: SfPaths, hashes: SkitHashes): Promise<string[]> {
  const root = storeEntryDir(paths, hashes.bundle);
  const check = await compareEntry(root, manifestOf(hashes), 'skills');
  const changed = allChanged(check.diff);
  const manifestFile = existsSync(join(root, 'manifest.json')) ? onDisk('manifest.json', join(root, 'manifest.json')) : null;
  const manifestChecked = manifestFile !== null && stamped(manifestFile, readStamp(root));
  if (!manifestChecked) {
    const manifest = await readStoreManifest(paths, hashes.bundle).catch((e: unknown) => {
      // a manifest that does not parse is a change like any other
      if (isSfError(e, 'SF_E_LIBRARY')) return null;
      throw e;
    });
    if (!manifest || listing(manifest) !== listing(manifestOf(hashes))) changed.push('manifest.json');
  }
  if (changed.length === 0 && (check.hashed || !manifestChecked)) writeStamp(paths, root, check.at, [...check.files, manifestFile!]);
  return changed;
}

/**
 * What differs in the store entry of `bundleHash` (release tree and skills) from the release its
 * own manifest lists, the manifest checked against the bundle and skill hashes it names; null when
 * there is no entry. For recovery, which has no source to compare with.
 */
export async function storedEntryChanges(paths: SfPaths, bundleHash: string): Promise<string[] | null> {
  const manifest = await readStoreManifest(paths, bundleHash).catch((e: unknown) => {
    if (isSfError(e, 'SF_E_LIBRARY')) return 'corrupt' as const;
    throw e;
  });
  if (manifest === null) return null;
  if (manifest === 'corrupt' || !listingMatches(manifest, bundleHash)) return ['manifest.json'];
  return allChanged((await compareEntry(storeEntryDir(paths, bundleHash), manifest, '')).diff);
}

const listingMatches = (m: Listing, bundleHash: string): boolean =>
  digestListing('bundle', m.files) === bundleHash && m.skills.every((s) => digestListing('skill', s.files) === s.hash);

/** Size and count of what backups/store holds (changes kept from replaced entries), for doctor. */
export async function storeBackups(paths: SfPaths): Promise<{ dir: string; entries: number; bytes: number }> {
  const dir = backupsStore(paths);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return { dir, entries: 0, bytes: 0 };
    throw e;
  }
  const size = (p: string): number => {
    const st = lstatSync(p);
    return st.isDirectory() ? readdirSync(p).reduce((sum, n) => sum + size(join(p, n)), 0) : st.size;
  };
  return { dir, entries: names.length, bytes: names.reduce((sum, n) => sum + size(join(dir, n)), 0) };
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
  const names = new SourceNames(sourceRoot);
  for (const f of hashes.files) {
    const data = readVerified(f, names);
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
