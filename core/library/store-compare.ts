import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { digestFiles } from '../skit/file-digests.js';
import type { SfPaths } from './paths.js';
import type { StoreManifest } from './store.js';
import type { ExpectedFile } from './tree-diff.js';

/**
 * How a store entry on disk compares with the release its manifest lists (core/library/store.ts
 * reuses an entry only when it is intact): a walk of the entry, a stamp of what a full comparison
 * found intact (so the next one reads no unchanged file), and the caches that are no change.
 */

/** What an entry's manifest lists: the release tree and each skill's projection. */
export type Listing = Pick<StoreManifest, 'files' | 'skills'>;

/** How an entry differs from its listing; paths relative to the entry. */
export interface EntryDiff {
  modified: string[];
  /** files, links and special files the listing does not have */
  added: string[];
  missing: string[];
}

export const allChanged = (d: EntryDiff): string[] => [...d.modified, ...d.added, ...d.missing].sort();

/**
 * Caches tools leave next to a skill's files when an agent runs them through a linked skill
 * directory (Python byte-code, Finder metadata): not a change of the release, so they neither
 * make an install rebuild the entry nor get backed up (docs/install.md).
 */
const isCacheName = (name: string): boolean => name === '__pycache__' || name === '.DS_Store';
export const isStoreCache = (rel: string): boolean => rel.split('/').some(isCacheName);

/** Forge's own files at the root of an entry, beside the release content. */
const STAMP = 'stamp.json';
export const BOOKKEEPING = new Set(['manifest.json', STAMP]);

/** A file of an entry as it is on disk; `sig` changes whenever the file does (size, inode, ctime, mode). */
export interface OnDisk {
  path: string;
  abs: string;
  size: number;
  exec: boolean;
  ctimeMs: number;
  sig: string;
}

export function onDisk(path: string, at: string): OnDisk {
  const st = lstatSync(at);
  return { path, abs: at, size: st.size, exec: (st.mode & 0o111) !== 0, ctimeMs: st.ctimeMs, sig: `${st.size}:${st.ino}:${st.ctimeMs}:${st.mode}` };
}

/**
 * Every file below `root`/`under` (caches and bookkeeping left out), paths relative to `root`;
 * links and special files as `odd`. Synchronous: thousands of lstat calls without a thread-pool
 * round trip each.
 */
function listEntry(root: string, under: string): { files: OnDisk[]; odd: string[] } {
  const files: OnDisk[] = [];
  const odd: string[] = [];
  const visit = (dir: string, rel: string) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (isCacheName(d.name) || (!rel && BOOKKEEPING.has(d.name))) continue;
      const path = rel ? `${rel}/${d.name}` : d.name;
      const at = join(dir, d.name);
      if (d.isDirectory()) visit(at, path);
      else if (!d.isFile()) odd.push(path);
      else files.push(onDisk(path, at));
    }
  };
  visit(under ? join(root, under) : root, under);
  return { files, odd };
}

/** `stamp.json`: the sig of every file of an entry a full comparison found intact, and when it looked (ms). */
interface Stamp {
  at: number;
  sigs: Record<string, string>;
}

export function readStamp(root: string): Stamp | null {
  try {
    const s = JSON.parse(readFileSync(join(root, STAMP), 'utf8')) as Stamp;
    return typeof s?.at === 'number' && typeof s.sigs === 'object' && s.sigs !== null ? s : null;
  } catch {
    // missing, torn or not ours: the entry is compared in full
    return null;
  }
}

/**
 * True when `f` is what the stamp found intact. A stamped file is trusted only if its last change
 * is older than the stamp by more than a timestamp tick: a write right after the stamp looked
 * could otherwise keep the same ctime. Whole-second ctimes mean a coarse filesystem: a wider margin.
 */
export const stamped = (f: OnDisk, stamp: Stamp | null): boolean =>
  stamp !== null && stamp.sigs[f.path] === f.sig && f.ctimeMs < stamp.at - (f.ctimeMs % 1000 === 0 ? 4000 : 100);

/** Writes a stamp (only a cache: when it cannot be written, the next reuse compares in full). */
export function writeStamp(paths: SfPaths, root: string, at: number, files: readonly OnDisk[]): void {
  const tmp = join(paths.storeStaging, `stamp-${basename(root)}.${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(paths.storeStaging, { recursive: true });
    writeFileSync(tmp, JSON.stringify({ at, sigs: Object.fromEntries(files.map((f) => [f.path, f.sig])) } satisfies Stamp));
    renameSync(tmp, join(root, STAMP));
  } catch {
    rmSync(tmp, { force: true });
  }
}

/** NFC form of a path; ASCII (nearly every path) is already. */
const nfc = (p: string): string => (/[^\x00-\x7f]/.test(p) ? p.normalize('NFC') : p);

const expectedFiles = (listing: Listing): ExpectedFile[] => [
  ...listing.files.map((f) => ({ ...f, path: `release/${f.path}` })),
  ...listing.skills.flatMap((k) => k.files.map((f) => ({ ...f, path: `skills/${k.name}/${f.path}` }))),
];

/** A comparison of an entry: how it differs, what it looked at, and whether it had to read files. */
export interface Comparison {
  diff: EntryDiff;
  files: OnDisk[];
  at: number;
  hashed: boolean;
}

/**
 * Compares the files below `root`/`under` ('' for all) with `listing` (as an entry: release/,
 * skills/<name>/). A file the entry's stamp found intact is not read again; every other one is
 * hashed. Only a change changes a sig, so an intact, stamped entry costs a walk.
 */
export async function compareEntry(root: string, listing: Listing, under: '' | 'skills'): Promise<Comparison> {
  const at = Date.now();
  const { files, odd } = listEntry(root, under);
  const want = new Map(expectedFiles(listing).filter((f) => f.path.startsWith(under)).map((f) => [nfc(f.path), f]));
  const stamp = readStamp(root);
  const diff: EntryDiff = { modified: [], added: [...odd], missing: [] };
  const toHash: { file: OnDisk; sha256: string }[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    const key = nfc(f.path);
    const exp = want.get(key);
    if (!exp) {
      diff.added.push(f.path);
      continue;
    }
    seen.add(key);
    if ((exp.mode === 'exec') !== f.exec) diff.modified.push(f.path);
    else if (!stamped(f, stamp)) toHash.push({ file: f, sha256: exp.sha256 });
  }
  for (const [key, f] of want) if (!seen.has(key)) diff.missing.push(f.path);
  const digests = await digestFiles(toHash.map(({ file }) => ({ abs: file.abs, size: file.size })));
  digests.forEach((d, i) => {
    if (d.sha256 !== toHash[i].sha256) diff.modified.push(toHash[i].file.path);
  });
  return { diff: { modified: diff.modified.sort(), added: diff.added.sort(), missing: diff.missing.sort() }, files, at, hashed: toHash.length > 0 };
}
