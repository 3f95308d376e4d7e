import { isUtf8 } from 'node:buffer';
import type { OtlpLimits } from './limits.js';
import type { OtlpAttributes, OtlpResource, OtlpScope, OtlpValue } from './types.js';

/**
 * Wire-level reading for the direct OTLP protobuf decoder (direct-decode.ts): a bounds-checked
 * reader, AnyValue and KeyValue decoding with the limits applied while reading (attributes past
 * the cap and values past the depth limit are skipped, never materialized), Resource and
 * InstrumentationScope. Shapes and limit semantics match from-wire.ts.
 */

/** A structurally invalid protobuf message. */
export class Malformed extends Error {}

export const TWO32 = 4294967296;

/** Minimal protobuf wire reader over one buffer; every read is bounds-checked. */
/** What a decode left out or changed, for partial_success and for storing the bytes verbatim. */
export interface WireStats {
  unknown: number;
  repaired: number;
}

export class Wire {
  pos: number;
  /**
   * `stats.unknown` counts skipped fields: unknown to the schema or not carried into the decoded
   * shape; `stats.repaired` strings whose invalid UTF-8 was replaced with U+FFFD (shared by sub-readers)
   */
  constructor(readonly buf: Buffer, start: number, readonly end: number, readonly stats: WireStats = { unknown: 0, repaired: 0 }) {
    this.pos = start;
  }
  /** A field tag (field number and wire type); field number 0 does not exist in protobuf. */
  tag(): number {
    const t = this.varint();
    if (t < 8) throw new Malformed('a field has the illegal number 0');
    return t;
  }
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw new Malformed('truncated varint');
      const b = this.buf[this.pos++];
      if (shift < 28) result |= (b & 0x7f) << shift;
      else if (shift < 64) result += (b & 0x7f) * 2 ** shift;
      else throw new Malformed('varint longer than 10 bytes');
      if (b < 0x80) return shift < 28 ? result >>> 0 : result;
      shift += 7;
    }
  }
  /** int64 varint as [lo, hi] 32-bit halves. */
  varint64(): [number, number] {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Malformed('truncated varint');
      const b = this.buf[this.pos++];
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x70) >> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) return [lo >>> 0, hi >>> 0];
    }
    throw new Malformed('varint longer than 10 bytes');
  }
  fixed32(): number {
    if (this.pos + 4 > this.end) throw new Malformed('truncated fixed32');
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  double(): number {
    if (this.pos + 8 > this.end) throw new Malformed('truncated double');
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
  /** A fixed64 nanosecond timestamp as a decimal string without leading zeros. */
  nanos(): string {
    const lo = this.fixed32();
    const hi = this.fixed32();
    if (hi < 0x200000) return String(hi * TWO32 + lo);
    return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
  }
  /** Length of a length-delimited field; the caller reads [pos, pos + len). */
  len(): number {
    const n = this.varint();
    if (n > this.end - this.pos) throw new Malformed('length past the end of the message');
    return n;
  }
  string(): string {
    const n = this.len();
    // Buffer#utf8Slice is what toString('utf8', a, b) calls after its argument checks (bounds are checked by len())
    const s = (this.buf as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(this.pos, this.pos + n);
    // decoding replaced invalid UTF-8 with U+FFFD; a U+FFFD that was sent as such is valid UTF-8
    if (s.includes('\ufffd') && !isUtf8(this.buf.subarray(this.pos, this.pos + n))) this.stats.repaired++;
    this.pos += n;
    return s;
  }
  bytes(): Buffer {
    const n = this.len();
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(wireType: number): void {
    this.stats.unknown++;
    if (wireType === 0) this.varint64();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) {
      const n = this.len();
      this.pos += n;
    }
    else if (wireType === 5) this.pos += 4;
    else throw new Malformed(`unsupported wire type ${wireType}`);
    if (this.pos > this.end) throw new Malformed('field past the end of the message');
  }
  /** Sub-reader over the next length-delimited field. */
  sub(): Wire {
    const n = this.len();
    const w = new Wire(this.buf, this.pos, this.pos + n, this.stats);
    this.pos += n;
    return w;
  }
}

/** Limits plus the running count of what they removed. */
export interface Ctx {
  limits: OtlpLimits;
  dropped: number;
  /** trace, span and parent span ids of kept items dropped as malformed (see `readId`) */
  malformedIds: number;
}

export const idHex = (b: Buffer, bytes: number): string | undefined => {
  if (b.length !== bytes) return undefined;
  const h = b.toString('hex');
  return /^0+$/.test(h) ? undefined : h;
};

/**
 * An optional id field of a kept item (a log record's trace and span id, a parent span id, a
 * link's ids): its hex, or undefined when it is empty, all zero (both mean "none" in OTLP) or the
 * wrong length, which is counted in `ctx.malformedIds`.
 */
export function readId(w: Wire, bytes: number, ctx: Ctx): string | undefined {
  const b = w.bytes();
  if (b.length > 0 && b.length !== bytes) ctx.malformedIds++;
  return idHex(b, bytes);
}

export function expect(wt: number, want: number, what: string): void {
  if (wt !== want) throw new Malformed(`${what} has wire type ${wt}, expected ${want}`);
}

export function int64(lo: number, hi: number): number | bigint {
  if (hi <= 0x1fffff) return hi * TWO32 + lo;
  if (hi >= 0xffe00000 && (hi !== 0xffe00000 || lo !== 0)) return (hi - TWO32) * TWO32 + lo;
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

export function anyValue(w: Wire, ctx: Ctx, depth: number, counter: { dropped: number }): OtlpValue {
  if (depth > ctx.limits.maxValueDepth) {
    counter.dropped++;
    return null;
  }
  let value: OtlpValue = null;
  while (w.pos < w.end) {
    const tag = w.tag();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 && wt === 2) {
      const s = w.string();
      if (s.length > ctx.limits.maxStringLength) {
        counter.dropped++;
        value = s.slice(0, ctx.limits.maxStringLength);
      } else value = s;
    } else if (field === 2 && wt === 0) value = w.varint64()[0] !== 0;
    else if (field === 3 && wt === 0) value = int64(...w.varint64());
    else if (field === 4 && wt === 1) value = w.double();
    else if (field === 5 && wt === 2) {
      const arr = w.sub();
      const out: OtlpValue[] = [];
      while (arr.pos < arr.end) {
        const t = arr.tag();
        if (t >>> 3 === 1 && (t & 7) === 2) out.push(anyValue(arr.sub(), ctx, depth + 1, counter));
        else arr.skip(t & 7);
      }
      value = out;
    } else if (field === 6 && wt === 2) {
      const list = w.sub();
      value = keyValues(list, 1, ctx, depth + 1, counter);
    } else if (field === 7 && wt === 2) value = new Uint8Array(w.bytes());
    else w.skip(wt);
  }
  return value;
}

/** Repeated KeyValue (field `field` of the reader's message) folded into a flat map, capped. */
export function keyValues(w: Wire, field: number, ctx: Ctx, depth: number, counter: { dropped: number }, into: OtlpAttributes = {}, kept = { n: 0 }): OtlpAttributes {
  while (w.pos < w.end) {
    const tag = w.tag();
    if (tag >>> 3 !== field || (tag & 7) !== 2) {
      w.skip(tag & 7);
      continue;
    }
    keyValue(w.sub(), ctx, depth, counter, into, kept);
  }
  return into;
}

export function keyValue(kv: Wire, ctx: Ctx, depth: number, counter: { dropped: number }, into: OtlpAttributes, kept: { n: number }): void {
  let key: string | undefined;
  let value: OtlpValue = null;
  let skipped = false;
  while (kv.pos < kv.end) {
    const tag = kv.tag();
    const f = tag >>> 3;
    if (f === 1 && (tag & 7) === 2) key = kv.string();
    else if (f === 2 && (tag & 7) === 2) {
      const full = key !== undefined && kept.n >= ctx.limits.maxAttributes && !(key in into);
      if (full) {
        const n = kv.len(); // read before adding: `pos += len()` would add to the pre-varint position
        kv.pos += n;
        skipped = true;
      } else value = anyValue(kv.sub(), ctx, depth, counter);
    } else kv.skip(tag & 7);
  }
  if (key === undefined) return;
  // a "__proto__" key would reassign the map's prototype; it is dropped like an over-limit key
  if (skipped || key === '__proto__' || (kept.n >= ctx.limits.maxAttributes && !(key in into))) {
    counter.dropped++;
    return;
  }
  if (!(key in into)) kept.n++;
  into[key] = value;
}

/** A Resource message. */
export function resource(w: Wire, ctx: Ctx): OtlpResource {
  const counter = { dropped: 0 };
  const attrs: OtlpAttributes = {};
  const kept = { n: 0 };
  let declared = 0;
  while (w.pos < w.end) {
    const tag = w.tag();
    const f = tag >>> 3;
    if (f === 1 && (tag & 7) === 2) keyValue(w.sub(), ctx, 0, counter, attrs, kept);
    else if (f === 2 && (tag & 7) === 0) declared = w.varint();
    else w.skip(tag & 7);
  }
  ctx.dropped += counter.dropped;
  const out: OtlpResource = { attributes: attrs };
  if (declared + counter.dropped) out.droppedAttributesCount = declared + counter.dropped;
  return out;
}

/** An InstrumentationScope message. */
export function scope(w: Wire, ctx: Ctx): OtlpScope {
  const counter = { dropped: 0 };
  const attrs: OtlpAttributes = {};
  const kept = { n: 0 };
  let name = '';
  let version = '';
  while (w.pos < w.end) {
    const tag = w.tag();
    const f = tag >>> 3;
    if (f === 1 && (tag & 7) === 2) name = w.string();
    else if (f === 2 && (tag & 7) === 2) version = w.string();
    else if (f === 3 && (tag & 7) === 2) keyValue(w.sub(), ctx, 0, counter, attrs, kept);
    else w.skip(tag & 7);
  }
  ctx.dropped += counter.dropped;
  const out: OtlpScope = { name };
  if (version) out.version = version;
  if (kept.n) out.attributes = attrs;
  return out;
}
