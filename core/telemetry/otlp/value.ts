import type { OtlpLimits } from './limits.js';
import type { OtlpAttributes, OtlpValue } from './types.js';

/**
 * Conversion between the wire objects of OTLP (protobufjs objects or OTLP/JSON, which share the
 * lowerCamelCase field names) and decoded values. The two wire modes differ only in ids (JSON: hex
 * strings; protobuf: bytes), AnyValue bytes (JSON: base64) and 64-bit integers (JSON: strings).
 */
export type WireMode = 'json' | 'proto';

/** Mutable count of values dropped by the limits while decoding one item. */
export interface DropCounter {
  dropped: number;
}

type Wire = Record<string, unknown>;

/** A decimal int64 (string, number or Long-like) as a number when exact, else a bigint. */
export function int64FromWire(v: unknown): number | bigint {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  const s = String(v);
  if (!/^-?\d+$/.test(s)) return Number.NaN;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : BigInt(s);
}

/** A 64-bit unsigned nanosecond timestamp as a decimal string ('0' when absent). */
export function nanosFromWire(v: unknown): string {
  if (v === undefined || v === null || v === '') return '0';
  const s = typeof v === 'number' ? BigInt(Math.trunc(v)).toString() : String(v);
  return /^\d+$/.test(s) ? s.replace(/^0+(?=\d)/, '') : '0';
}

/** A trace/span id from the wire as lowercase hex; undefined when absent, malformed or all zero. */
export function idFromWire(v: unknown, bytes: number): string | undefined {
  let hex: string | undefined;
  if (v instanceof Uint8Array) hex = Buffer.from(v).toString('hex');
  else if (typeof v === 'string') hex = v.toLowerCase();
  if (!hex || hex.length !== bytes * 2 || !/^[0-9a-f]+$/.test(hex) || /^0+$/.test(hex)) return undefined;
  return hex;
}

/** A hex id in the given wire mode. */
export function idToWire(hex: string, mode: WireMode): string | Buffer {
  return mode === 'json' ? hex : Buffer.from(hex, 'hex');
}

function clip(s: string, limits: OtlpLimits, counter: DropCounter): string {
  if (s.length <= limits.maxStringLength) return s;
  counter.dropped++;
  return s.slice(0, limits.maxStringLength);
}

/** Decodes one AnyValue wire object. */
export function valueFromWire(v: unknown, mode: WireMode, limits: OtlpLimits, counter: DropCounter, depth = 0): OtlpValue {
  if (v === null || typeof v !== 'object') return null;
  if (depth > limits.maxValueDepth) {
    counter.dropped++;
    return null;
  }
  const w = v as Wire;
  if (w.stringValue !== undefined) return clip(String(w.stringValue), limits, counter);
  if (w.boolValue !== undefined) return w.boolValue === true || w.boolValue === 'true';
  if (w.intValue !== undefined) return int64FromWire(w.intValue);
  if (w.doubleValue !== undefined) return Number(w.doubleValue);
  if (w.arrayValue !== undefined) {
    const values = ((w.arrayValue as Wire).values as unknown[] | undefined) ?? [];
    return values.map((x) => valueFromWire(x, mode, limits, counter, depth + 1));
  }
  if (w.kvlistValue !== undefined) {
    return attributesFromWire((w.kvlistValue as Wire).values as unknown[] | undefined, mode, limits, counter, depth + 1);
  }
  if (w.bytesValue !== undefined) {
    const b = w.bytesValue;
    return b instanceof Uint8Array ? new Uint8Array(b) : new Uint8Array(Buffer.from(String(b), 'base64'));
  }
  return null;
}

/** Decodes a repeated KeyValue into a flat map, keeping at most `limits.maxAttributes` keys. */
export function attributesFromWire(kvs: unknown[] | undefined, mode: WireMode, limits: OtlpLimits, counter: DropCounter, depth = 0): OtlpAttributes {
  const out: OtlpAttributes = {};
  let kept = 0;
  for (const kv of kvs ?? []) {
    if (!kv || typeof kv !== 'object') continue;
    const key = (kv as Wire).key;
    if (typeof key !== 'string') continue;
    if (kept >= limits.maxAttributes && !(key in out)) {
      counter.dropped++;
      continue;
    }
    if (!(key in out)) kept++;
    out[key] = valueFromWire((kv as Wire).value, mode, limits, counter, depth);
  }
  return out;
}

/** How to encode a JS number: as an OTLP int or double. */
export type NumberKind = 'int' | 'double';

/** Encodes one value as an AnyValue wire object; `kind` forces int/double for numbers. */
export function valueToWire(v: OtlpValue | undefined, mode: WireMode, kind?: NumberKind): Wire {
  if (v === null || v === undefined) return {};
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'bigint') return { intValue: v.toString() };
  if (typeof v === 'number') {
    if (kind === 'double' || (kind !== 'int' && !Number.isInteger(v)) || !Number.isFinite(v)) return { doubleValue: v };
    return { intValue: mode === 'json' ? String(v) : v };
  }
  if (v instanceof Uint8Array) return { bytesValue: mode === 'json' ? Buffer.from(v).toString('base64') : Buffer.from(v) };
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => valueToWire(x, mode, kind)) } };
  return { kvlistValue: { values: attributesToWire(v, mode) } };
}

/** Encodes a flat attribute map as a repeated KeyValue; `kindOf` gives number kinds per key. */
export function attributesToWire(attrs: OtlpAttributes | Readonly<Record<string, unknown>>, mode: WireMode, kindOf?: (key: string) => NumberKind | undefined): Wire[] {
  const out: Wire[] = [];
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    out.push({ key, value: valueToWire(value as OtlpValue, mode, kindOf?.(key)) });
  }
  return out;
}
