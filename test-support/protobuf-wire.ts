/** Protobuf wire helpers for tests that hand-build (often hostile) OTLP messages byte by byte. */

export function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** Field `num` with wire type `wt` and the length-delimited payload `b`. */
export const field = (num: number, wt: number, b: Buffer): Buffer => Buffer.concat([varint((num << 3) | wt), varint(b.length), b]);

export const stringField = (num: number, s: string | Buffer): Buffer => field(num, 2, Buffer.isBuffer(s) ? s : Buffer.from(s));

/** A fixed64 field (timestamps, counts). */
export function fixed64Field(num: number, n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return Buffer.concat([varint((num << 3) | 1), b]);
}

/**
 * AnyValue{array_value: ArrayValue{values: [...]}} nested `levels` deep around the AnyValue bytes
 * `leaf`, built in one pass (headers outermost first), so 100,000 levels cost no recursion here.
 */
export function nestedArrays(levels: number, leaf: Buffer): Buffer {
  const headers: Buffer[] = [];
  let size = leaf.length;
  for (let i = 0; i < levels; i++) {
    const values = Buffer.concat([Buffer.from([0x0a]), varint(size)]);
    size += values.length;
    const array = Buffer.concat([Buffer.from([0x2a]), varint(size)]);
    size += array.length;
    headers.push(values, array);
  }
  return Buffer.concat([...headers.reverse(), leaf]);
}
