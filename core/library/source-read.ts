import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';
import type { InventoryFile } from '../skit/hash.js';

/**
 * How the store reads a source's files: by the names on disk, never through a link, and only
 * while they still hold the bytes that were hashed.
 */

const abs = (root: string, rel: string) => join(root, ...rel.split('/'));

/**
 * Reads a source file and checks that it still has the bytes that were hashed. It is opened
 * without following a symbolic link and without blocking on a FIFO, and must still be a regular
 * file of the hashed size before a byte is read: a file swapped for a link to /dev/zero or a
 * FIFO between hashing and storing is refused, not read without end.
 */
export function readVerified(f: InventoryFile, names: SourceNames): Buffer {
  const changed = (how: string) =>
    new SfError('SF_E_HASH_MISMATCH', `${f.path} ${how} while it was being installed`, {
      location: { file: f.path },
      hint: 'make sure nothing is editing the source, then run the command again',
    });
  let fd: number;
  try {
    fd = names.open(f.path);
  } catch (e) {
    if (hasErrno(e, 'ELOOP')) throw changed('became a symbolic link');
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw changed('stopped being a regular file');
    if (typeof f.size === 'number' && st.size !== f.size) throw changed('changed');
    const bytes = Buffer.alloc(st.size);
    let n = 0;
    while (n < bytes.length) {
      const got = readSync(fd, bytes, n, bytes.length - n, n);
      if (got === 0) throw changed('changed');
      n += got;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== f.sha256) throw changed('changed');
    return bytes;
  } finally {
    closeSync(fd);
  }
}

const OPEN_SOURCE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens the files of a source by their inventory paths. Those are NFC (schemas/hashing.md), but
 * the source may spell a name otherwise (NFD, as archives and checkouts made on macOS do): a
 * path not found as written is looked up directory by directory, the entry whose NFC form is the
 * inventory's being read under its own name. Listings are kept for the whole entry.
 */
export class SourceNames {
  private readonly listings = new Map<string, Map<string, string>>();

  constructor(private readonly root: string) {}

  open(rel: string): number {
    try {
      return openSync(abs(this.root, rel), OPEN_SOURCE);
    } catch (e) {
      if (!hasErrno(e, 'ENOENT')) throw e;
      const onDisk = this.onDisk(rel);
      if (onDisk === undefined || onDisk === rel) throw e;
      return openSync(abs(this.root, onDisk), OPEN_SOURCE);
    }
  }

  /** `rel` as the source spells it, or undefined when a name on the way is not there in any spelling. */
  private onDisk(rel: string): string | undefined {
    const out: string[] = [];
    for (const segment of rel.split('/')) {
      const name = this.listing(out.join('/')).get(segment.normalize('NFC'));
      if (name === undefined) return undefined;
      out.push(name);
    }
    return out.join('/');
  }

  /** NFC name -> name on disk, for one directory of the source ('' for the root). */
  private listing(dir: string): Map<string, string> {
    let names = this.listings.get(dir);
    if (!names) {
      names = new Map();
      try {
        for (const name of readdirSync(dir === '' ? this.root : abs(this.root, dir))) names.set(name.normalize('NFC'), name);
      } catch (e) {
        if (!hasErrno(e, 'ENOENT') && !hasErrno(e, 'ENOTDIR')) throw e;
      }
      this.listings.set(dir, names);
    }
    return names;
  }
}
