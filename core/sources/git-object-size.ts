import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { lazyBuiltin } from '../runtime/lazy-builtin.js';

// loaded only when a git clone is counted: commands that fetch no git source never pay for it
const zlib = lazyBuiltin<typeof import('node:zlib')>('node:zlib');

/**
 * The size a git object inflates to, read from the object's header without inflating it: the
 * pre-checkout count of a clone must not inflate a 1.5 GB blob (a few MB packed) to learn that
 * it is too big. Objects are found in the packs a clone wrote (`objects/pack/*.idx`, index
 * version 2) or as loose objects. For a delta, the result size at the head of the delta data is
 * read from its first inflated bytes.
 *
 * Undefined when the object or its format is not recognized: the caller then counts the bytes as
 * they are written (the checkout's own meter), which stays the backstop.
 */
export class ObjectSizes {
  private packs: Pack[] | undefined;

  constructor(private readonly gitdir: string) {}

  size(oid: string): number | undefined {
    try {
      for (const pack of this.loadPacks()) {
        const offset = pack.offsetOf(oid);
        if (offset !== undefined) return pack.sizeAt(offset);
      }
      return this.looseSize(oid);
    } catch {
      return undefined;
    }
  }

  /** Closes the pack files. */
  close(): void {
    for (const pack of this.packs ?? []) pack.close();
    this.packs = [];
  }

  private loadPacks(): Pack[] {
    if (this.packs) return this.packs;
    const dir = join(this.gitdir, 'objects', 'pack');
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.idx'));
    } catch {
      // no pack directory: loose objects only
    }
    this.packs = names.map((n) => new Pack(join(dir, n), join(dir, `${n.slice(0, -4)}.pack`))).filter((p) => p.valid);
    return this.packs;
  }

  private looseSize(oid: string): number | undefined {
    const fd = openSync(join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), 'r');
    try {
      const head = inflateStart(readAt(fd, 0, 64));
      // "<type> <size>\0"
      const m = /^[a-z]+ (\d+)\0/.exec(head.toString('latin1'));
      return m ? Number(m[1]) : undefined;
    } finally {
      closeSync(fd);
    }
  }
}

const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;

/** One pack and its version-2 index: fan-out table, sorted object ids, CRCs, 31-bit offsets, 64-bit offsets. */
class Pack {
  private readonly idx: Buffer;
  private readonly count: number;
  private fd: number | undefined;
  readonly valid: boolean;

  constructor(idxPath: string, private readonly packPath: string) {
    this.idx = readFileSync(idxPath);
    this.valid = this.idx.length >= 8 + 256 * 4 && this.idx.readUInt32BE(0) === 0xff744f63 && this.idx.readUInt32BE(4) === 2;
    this.count = this.valid ? this.idx.readUInt32BE(8 + 255 * 4) : 0;
  }

  offsetOf(oid: string): number | undefined {
    const id = Buffer.from(oid, 'hex');
    const first = id[0];
    let lo = first === 0 ? 0 : this.idx.readUInt32BE(8 + (first - 1) * 4);
    let hi = this.idx.readUInt32BE(8 + first * 4);
    const names = 8 + 256 * 4;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = this.idx.compare(id, 0, 20, names + mid * 20, names + mid * 20 + 20);
      if (cmp === 0) return this.offsetAt(mid);
      if (cmp > 0) hi = mid;
      else lo = mid + 1;
    }
    return undefined;
  }

  private offsetAt(i: number): number {
    const offsets = 8 + 256 * 4 + this.count * 24;
    const small = this.idx.readUInt32BE(offsets + i * 4);
    if ((small & 0x80000000) === 0) return small;
    const large = offsets + this.count * 4 + (small & 0x7fffffff) * 8;
    return Number(this.idx.readBigUInt64BE(large));
  }

  /** The inflated size of the object at `offset`: from its header, or for a delta from the delta's result size. */
  sizeAt(offset: number): number | undefined {
    this.fd ??= openSync(this.packPath, 'r');
    const head = readAt(this.fd, offset, 32);
    let i = 0;
    let c = head[i++];
    const type = (c >> 4) & 7;
    let size = c & 15;
    for (let shift = 4; c & 0x80; shift += 7) {
      c = head[i++];
      size += (c & 0x7f) * 2 ** shift;
    }
    if (type >= 1 && type <= 4) return size;
    if (type === OBJ_OFS_DELTA) while (head[i++] & 0x80);
    else if (type === OBJ_REF_DELTA) i += 20;
    else return undefined;
    // delta data: <base size varint> <result size varint> <instructions>
    const delta = inflateStart(readAt(this.fd, offset + i, 64));
    let at = 0;
    while (delta[at++] & 0x80);
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= delta.length) return undefined;
      const b = delta[at++];
      result += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return result;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

/** The first bytes a zlib stream inflates to, from its first bytes only (whatever follows it is ignored). */
function inflateStart(bytes: Buffer): Buffer {
  return zlib().inflateSync(bytes, { finishFlush: zlib().constants.Z_SYNC_FLUSH });
}
