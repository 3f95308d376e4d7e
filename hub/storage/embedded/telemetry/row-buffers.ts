import type { JsonValue } from '../../../projections/rows.js';

/**
 * Byte-level writing and reading for event-codec.ts: varints, UTF-8 strings (with a copy loop for
 * the short ASCII strings rows are mostly made of) and tagged JSON values.
 */

const enum Tag {
  Null = 0,
  True = 1,
  False = 2,
  String = 3,
  Int32 = 4,
  Float64 = 5,
  Array = 6,
  Object = 7,
}

/** A growable output buffer, reused between calls (one encoding at a time per thread). */
export class Out {
  buf = Buffer.allocUnsafe(256 * 1024);
  /** the same bytes as a plain Uint8Array: its slice() copies without going through Buffer's constructor */
  bytes = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  pos = 0;
  /** false once a non-ASCII string was written in the current row */
  ascii = true;

  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
    this.bytes = new Uint8Array(next.buffer, next.byteOffset, next.length);
  }

  varint(n: number): void {
    this.room(5);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.pos++] = n;
  }

  string(s: string): void {
    const n = s.length;
    if (n < 0x80) {
      // short ASCII (almost every field): one length byte and a plain copy loop
      this.room(n + 1);
      const buf = this.buf;
      let p = this.pos + 1;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) return this.longString(s);
        buf[p++] = c;
      }
      buf[this.pos] = n;
      this.pos = p;
      return;
    }
    this.longString(s);
  }

  private longString(s: string): void {
    const bytes = Buffer.byteLength(s, 'utf8');
    if (bytes !== s.length) this.ascii = false;
    this.varint(bytes);
    this.room(bytes);
    this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
  }

  value(v: JsonValue): void {
    this.room(9);
    if (v === null) this.buf[this.pos++] = Tag.Null;
    else if (v === true) this.buf[this.pos++] = Tag.True;
    else if (v === false) this.buf[this.pos++] = Tag.False;
    else if (typeof v === 'string') {
      this.buf[this.pos++] = Tag.String;
      this.string(v);
    } else if (typeof v === 'number') {
      if ((v | 0) === v && !Object.is(v, -0)) {
        this.buf[this.pos++] = Tag.Int32;
        this.pos = this.buf.writeInt32LE(v, this.pos);
      } else {
        this.buf[this.pos++] = Tag.Float64;
        this.pos = this.buf.writeDoubleLE(v, this.pos);
      }
    } else if (Array.isArray(v)) {
      this.buf[this.pos++] = Tag.Array;
      this.varint(v.length);
      for (const x of v) this.value(x);
    } else {
      this.buf[this.pos++] = Tag.Object;
      this.object(v);
    }
  }

  object(o: { [key: string]: JsonValue }): void {
    // two passes over the keys instead of an Object.keys array per object
    let n = 0;
    for (const _ in o) n++;
    this.varint(n);
    for (const k in o) {
      this.string(k);
      this.value(o[k]);
    }
  }
}

/** Buffer#utf8Slice / latin1Slice: what toString(encoding, a, b) calls after its argument checks. */
export type SliceableBuffer = Buffer & { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

/** Reads one encoded row (its fields start after the 9-byte header). */
export class In {
  pos = 9;

  /** `text`: the whole row as latin1 when every string in it is ASCII (strings are cut out of it) */
  constructor(
    readonly buf: SliceableBuffer,
    readonly text: string | undefined,
  ) {}

  varint(): number {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++];
      n |= (b & 0x7f) << shift;
      if (b < 0x80) return n >>> 0;
      shift += 7;
    }
  }

  skip(): void {
    const n = this.varint();
    this.pos += n;
  }

  string(): string {
    const n = this.varint();
    const start = this.pos;
    this.pos += n;
    return this.text !== undefined ? this.text.substring(start, start + n) : this.buf.utf8Slice(start, start + n);
  }

  value(): JsonValue {
    const tag = this.buf[this.pos++] as Tag;
    switch (tag) {
      case Tag.Null: return null;
      case Tag.True: return true;
      case Tag.False: return false;
      case Tag.String: return this.string();
      case Tag.Int32: this.pos += 4; return this.buf.readInt32LE(this.pos - 4);
      case Tag.Float64: this.pos += 8; return this.buf.readDoubleLE(this.pos - 8);
      case Tag.Array: {
        const n = this.varint();
        const a: JsonValue[] = [];
        for (let i = 0; i < n; i++) a.push(this.value());
        return a;
      }
      case Tag.Object: return this.object();
      default: throw new Error(`corrupt event row: value tag ${tag as number}`);
    }
  }

  object(): { [key: string]: JsonValue } {
    const n = this.varint();
    const o: { [key: string]: JsonValue } = {};
    for (let i = 0; i < n; i++) {
      const k = this.string();
      const v = this.value();
      // an attribute named "__proto__" is data, not the object's prototype
      if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      else o[k] = v;
    }
    return o;
  }
}
