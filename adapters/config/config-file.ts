import { isUtf8 } from 'node:buffer';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { withFileLock } from '../../core/fs/file-lock.js';
import { SfError, hasErrno } from '../../core/errors/index.js';
import { removeFileDurable, resolveWriteTarget, writeFileAtomic } from './atomic-write.js';
import { writeBackup } from './backup.js';
import { detectShape, restoreShape, type TextShape } from './text-shape.js';

/** A config file as read: text without BOM, its shape, the raw bytes for the backup, and its mode. */
export interface ConfigSnapshot {
  file: string;
  exists: boolean;
  bytes: Buffer | null;
  text: string;
  shape: TextShape;
  /** permission bits of the existing file (what the link points at, for a symlink) */
  mode?: number;
}

/**
 * Reads `file`; a missing file is an empty snapshot with `exists: false`. Synchronous: config
 * files are small. One stat decides what it is first: a directory, or a device, FIFO or socket
 * (perhaps behind a symlink: reading one would hang, writing would replace it), is SF_E_CONFIG.
 */
export function readConfig(file: string): ConfigSnapshot {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st?.isDirectory()) {
    throw new SfError('SF_E_CONFIG', `${file} is a directory, not a config file`, {
      location: { file },
      hint: 'move that directory away (the host expects a file there) and run the command again; nothing was changed',
    });
  }
  if (st && !st.isFile()) {
    throw new SfError('SF_E_CONFIG', `${file} is not a regular file (a device, FIFO or socket)`, {
      location: { file },
      hint: 'point the host at a regular config file (check where a symbolic link there leads); nothing was changed',
    });
  }
  let bytes: Buffer | null = null;
  try {
    bytes = st ? readFileSync(file) : null;
  } catch (e) {
    // removed between the stat and the read: as if it had never been there
    if (!hasErrno(e, 'ENOENT')) throw e;
  }
  const { shape, text } = detectShape(bytes ? bytes.toString('utf8') : '');
  return { file, exists: bytes !== null, bytes, text, shape, ...(bytes && st ? { mode: st.mode & 0o7777 } : {}) };
}

/** What a transform wants: new text (without BOM), `null` to delete the file, `undefined` for no change. */
export type ConfigTransform = (snapshot: ConfigSnapshot) => string | null | undefined;

export interface EditOutcome {
  changed: boolean;
  /** backup of the previous bytes, written when an existing file was changed */
  backup?: string;
  /** the snapshot the transform saw last */
  before: ConfigSnapshot;
}

const MAX_ATTEMPTS = 3;

/**
 * Told, under the file's lock, what the edit does once the transform has settled it: just before
 * the file is replaced (`written` true, with the backup of the previous bytes), or when nothing
 * needs writing. Never in a dry run.
 */
export type EditSettled = (written: boolean, backup?: string) => Promise<void>;

/**
 * One safe edit of a user's config file: read, transform (which must throw SF_E_CONFIG for a file
 * it cannot parse, before anything is written), back up the previous bytes, replace atomically.
 * If the file changes between our read and our write (the host rewrote it), the edit is redone
 * on the new content, a bounded number of times. `dryRun` stops after the transform.
 */
export async function editConfigFile(file: string, backupDir: string, transform: ConfigTransform, dryRun = false, settled?: EditSettled): Promise<EditOutcome> {
  if (dryRun) return editUnlocked(file, backupDir, transform, true);
  // sf commands editing one file (an install's skill entry and `sf observe install`'s settings in
  // the same settings.json) take turns: the changed-bytes check below cannot close the moment
  // between that check and the rename, where another sf's write would be lost
  const target = await resolveWriteTarget(file);
  if (!existsSync(dirname(target))) return editUnlocked(file, backupDir, transform, false, settled);
  const lock = join(dirname(target), `.${basename(target)}.sf-lock`);
  return withFileLock(lock, () => editUnlocked(file, backupDir, transform, false, settled), { what: target });
}

async function editUnlocked(file: string, backupDir: string, transform: ConfigTransform, dryRun: boolean, settled?: EditSettled): Promise<EditOutcome> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const before = readConfig(file);
    assertUtf8(before);
    const next = transform(before);
    const unchanged = next === undefined || (next !== null && before.exists && next === before.text) || (next === null && !before.exists);
    // only an edit that is needed is refused: a protected file that already says it all is fine
    if (!unchanged) assertNotWriteProtected(before);
    // a preflight: the transform ran every check; nothing is written
    if (dryRun) return { changed: false, before };
    if (unchanged) {
      await settled?.(false);
      return { changed: false, before };
    }
    const backup = before.bytes && before.bytes.length > 0 ? await writeBackup(file, before.bytes, backupDir) : undefined;
    const current = readConfig(file);
    if (!sameBytes(current.bytes, before.bytes)) continue;
    await settled?.(true, backup);
    if (next === null) {
      await removeFileDurable(await resolveWriteTarget(file));
    } else {
      await writeFileAtomic(file, restoreShape(next, before.shape));
    }
    return { changed: true, backup, before };
  }
  throw new SfError('SF_E_CONFLICT', `${file} kept changing while Forge tried to edit it`, {
    location: { file },
    hint: 'Close the agent or editor that is rewriting this file and run the command again.',
  });
}

/**
 * A config file without any write permission was protected on purpose (and an atomic replace
 * would go around the protection, since it needs only the directory to be writable): refuse.
 */
function assertNotWriteProtected(snap: ConfigSnapshot): void {
  const mode = snap.mode;
  if (mode === undefined || (mode & 0o222) !== 0) return;
  throw new SfError('SF_E_CONFIG', `${snap.file} is read-only (mode ${(mode & 0o777).toString(8).padStart(3, '0')}); Forge will not replace a file you write-protected`, {
    location: { file: snap.file },
    hint: `make it writable (chmod u+w ${snap.file}) and run the command again, or edit it yourself; nothing was changed`,
  });
}

/** Text Forge would re-encode must be UTF-8: decoding anything else replaces bytes with U+FFFD, and writing that back would lose them. */
function assertUtf8(snap: ConfigSnapshot): void {
  if (!snap.bytes || isUtf8(snap.bytes)) return;
  const bad = firstInvalidUtf8(snap.bytes);
  const head = snap.bytes.subarray(0, bad).toString('utf8');
  const line = head.split('\n').length;
  const column = head.length - head.lastIndexOf('\n');
  throw new SfError('SF_E_CONFIG', `${snap.file}:${line}:${column}: not UTF-8 text (byte 0x${snap.bytes[bad].toString(16).padStart(2, '0')}); Forge will not edit it`, {
    location: { file: snap.file, line, column },
    hint: 'Save the file as UTF-8 (host configs are JSON or TOML, which are UTF-8) and run the command again; the file was not changed.',
  });
}

/** Offset of the first byte that does not begin a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i];
    const n = c < 0x80 ? 1 : (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 0;
    if (n === 0 || !isUtf8(bytes.subarray(i, i + n))) return i;
    i += n;
  }
  return bytes.length - 1;
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}
