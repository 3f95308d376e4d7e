import type { ObservationEventRow } from '../../../projections/rows.js';
import type { EventHead } from '../../telemetry-ports.js';
import { In, Out, type SliceableBuffer } from './row-buffers.js';

/**
 * The compact encoding of observation_events rows in layout-2 generations (layout.ts). Rows are
 * encoded once per event on the ingest path and decoded by the normalizer thread, so the encoding
 * is a fixed field order instead of msgpack records (which walk a structure table per key):
 *
 *   format byte | presence bits (u32 LE x 2) | the present string fields, in STRING_FIELDS order |
 *   activationIds (count, strings) when present | attributes (count, key/value pairs) | body when present
 *
 * Counts and string lengths are varints, strings UTF-8, attribute and body values tagged JSON
 * values. Format 0x03 says every string of the row is ASCII, so the decoder reads the row's text
 * with one native call and cuts the strings out of it; 0x01 is the same without that promise.
 * 0x02 + JSON is the fallback for a row whose string field holds something else.
 */

const STRING_FIELDS = [
  'eventId', 'dedupBasis', 'eventName', 'signal', 'time', 'timeSource', 'observedTime', 'accountId', 'deviceId', 'repositoryId',
  'repositoryResolution', 'sessionId', 'turnId', 'traceId', 'spanId', 'parentSpanId', 'spanName', 'serviceName', 'hostName',
  'hostVersion', 'adapterName', 'adapterVersion', 'conversationId', 'agentName', 'model', 'packageId', 'skillId', 'skillName',
  'artifactVersion', 'artifactHash', 'contentHash', 'activationId', 'phase', 'result', 'triggerType', 'reasonCode', 'errorType',
  'evidenceSource', 'evidenceFidelity', 'schemaUrl', 'rawBatchId', 'normalizerVersion',
] as const satisfies readonly (keyof ObservationEventRow)[];

// Adding a field to ObservationEventRow without teaching it to this encoding fails to compile here.
type Encoded = (typeof STRING_FIELDS)[number] | 'activationIds' | 'attributes' | 'body';
type Unencoded = Exclude<keyof ObservationEventRow, Encoded>;
const everyFieldEncoded: [Unencoded] extends [never] ? true : Unencoded = true;
void everyFieldEncoded;

// The field order and the bit positions are the stored format: never reorder. Bits 42 and 43 are
// activationIds and body; a new string field needs its own bit from 44 on (and readers that know it).
if (STRING_FIELDS.length !== 42 || STRING_FIELDS[0] !== 'eventId' || STRING_FIELDS[2] !== 'eventName') {
  throw new Error('event-codec: STRING_FIELDS is the stored row format; see the comment above it');
}
const ACTIVATION_IDS_BIT = 1 << (42 - 32);
const BODY_BIT = 1 << (43 - 32);

const COMPACT = 0x01;
const JSON_ROW = 0x02;
const COMPACT_ASCII = 0x03;

/**
 * The string fields, generated once from STRING_FIELDS with a plain property access per field: a
 * loop over the names would read and write rows through megamorphic keyed accesses, which cost
 * more than the encoding itself. Writing puts the presence bits in `bits`, and says false (having
 * written a part of the row) when a string field holds something else.
 */
const writeStringFields = new Function(
  'row',
  'out',
  'bits',
  `let lo = 0, hi = 0, v;\n${STRING_FIELDS.map(
    (f, i) => `v = row.${f}; if (v !== undefined) { if (typeof v !== 'string') return false; ${i < 32 ? 'lo' : 'hi'} |= ${1 << i % 32}; out.string(v); }`,
  ).join('\n')}\nbits[0] = lo; bits[1] = hi; return true;`,
) as (row: ObservationEventRow, out: Out, bits: Uint32Array) => boolean;

const readStringFields = new Function(
  'input',
  'lo',
  'hi',
  'row',
  STRING_FIELDS.map((f, i) => `if (${i < 32 ? 'lo' : 'hi'} & ${1 << i % 32}) row.${f} = input.string();`).join('\n'),
) as (input: In, lo: number, hi: number, row: Partial<ObservationEventRow>) => void;

const out = new Out();
const bits = new Uint32Array(2);

/** Appends one row at `out.pos`. */
function writeRow(row: ObservationEventRow): void {
  const start = out.pos;
  out.room(9);
  out.pos += 9;
  out.ascii = true;
  if (!writeStringFields(row, out, bits)) {
    out.pos = start;
    const json = JSON.stringify(row);
    out.room(1 + Buffer.byteLength(json, 'utf8'));
    out.buf[out.pos++] = JSON_ROW;
    out.pos += out.buf.write(json, out.pos, 'utf8');
    return;
  }
  let hi = bits[1];
  if (row.activationIds !== undefined) {
    hi |= ACTIVATION_IDS_BIT;
    out.varint(row.activationIds.length);
    for (const id of row.activationIds) out.string(id);
  }
  out.object(row.attributes);
  if (row.body !== undefined) {
    hi |= BODY_BIT;
    out.value(row.body);
  }
  out.buf[start] = out.ascii ? COMPACT_ASCII : COMPACT;
  out.buf.writeUInt32LE(bits[0], start + 1);
  out.buf.writeUInt32LE(hi >>> 0, start + 5);
}

const copyOut = (): Uint8Array => out.bytes.slice(0, out.pos);

/** One row in the compact encoding (a copy the caller may keep). */
export function encodeEventRow(row: ObservationEventRow): Uint8Array {
  out.pos = 0;
  writeRow(row);
  return copyOut();
}

/** Rows back to back in one buffer; row i ends at `ends[i]`. */
export function encodeEventRows(rows: readonly ObservationEventRow[]): { values: Uint8Array; ends: Uint32Array } {
  const ends = new Uint32Array(rows.length);
  out.pos = 0;
  for (let i = 0; i < rows.length; i++) {
    writeRow(rows[i]);
    ends[i] = out.pos;
  }
  return { values: copyOut(), ends };
}

/** The fields decodeEventHead reads (EventHead in telemetry-ports.ts). */
const HEAD_FIELDS: ReadonlySet<string> = new Set(['eventId', 'eventName', 'time', 'accountId', 'deviceId', 'repositoryId', 'skillId', 'activationId', 'phase']);

// the first three fields (eventId, dedupBasis, eventName) are read by decodeEventHead itself
const readHeadFields = new Function(
  'input',
  'lo',
  'hi',
  'row',
  STRING_FIELDS.slice(3)
    .map((f, j) => j + 3)
    .map((i) => `if (${i < 32 ? 'lo' : 'hi'} & ${1 << i % 32}) ${HEAD_FIELDS.has(STRING_FIELDS[i]) ? `row.${STRING_FIELDS[i]} = input.string()` : 'input.skip()'};`)
    .join('\n'),
) as (input: In, lo: number, hi: number, row: Partial<EventHead>) => void;

const denseHead = new Function(`return { ${[...HEAD_FIELDS, 'activationIds'].map((f) => `${f}: undefined`).join(', ')} };`) as () => Partial<EventHead>;

/**
 * The head of a row (ids, name, time, phase, activation links), without decoding its other
 * strings or its attributes: what the normalizer needs of the events it only indexes.
 */
export function decodeEventHead(bytes: Uint8Array, wanted?: (eventName: string) => boolean): EventHead | undefined {
  const buf = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as SliceableBuffer;
  if (buf[0] !== COMPACT && buf[0] !== COMPACT_ASCII) {
    const row = decodeEventRow(bytes);
    return wanted && !wanted(row.eventName) ? undefined : row;
  }
  const lo = buf.readUInt32LE(1);
  const hi = buf.readUInt32LE(5);
  const input = new In(buf, undefined);
  const head = denseHead();
  if (lo & 1) head.eventId = input.string();
  if (lo & 2) input.skip();
  if (lo & 4) head.eventName = input.string();
  if (wanted && !wanted(head.eventName!)) return undefined;
  readHeadFields(input, lo, hi, head);
  if (hi & ACTIVATION_IDS_BIT) {
    const n = input.varint();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(input.string());
    head.activationIds = ids;
  }
  return head as EventHead;
}

/** A row with every field present and undefined, in one fixed order (see decodeEventRow's `dense`). */
const denseRow = new Function(
  `return { ${[...STRING_FIELDS, 'activationIds', 'attributes', 'body'].map((f) => `${f}: undefined`).join(', ')} };`,
) as () => Partial<ObservationEventRow>;

/**
 * One row back. `dense` gives every row every field (undefined when absent), so rows share one
 * object shape: for code that reads many rows' fields (the normalizer), not for rows handed out.
 */
export function decodeEventRow(bytes: Uint8Array, dense = false): ObservationEventRow {
  const buf = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as SliceableBuffer;
  const format = buf[0];
  if (format === JSON_ROW) return JSON.parse(buf.utf8Slice(1, buf.length)) as ObservationEventRow;
  if (format !== COMPACT && format !== COMPACT_ASCII) throw new Error(`corrupt event row: format ${format}`);
  const hi = buf.readUInt32LE(5);
  const input = new In(buf, format === COMPACT_ASCII ? buf.latin1Slice(0, buf.length) : undefined);
  const row = dense ? denseRow() : ({} as Partial<ObservationEventRow>);
  readStringFields(input, buf.readUInt32LE(1), hi, row);
  if (hi & ACTIVATION_IDS_BIT) {
    const n = input.varint();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(input.string());
    row.activationIds = ids;
  }
  row.attributes = input.object();
  if (hi & BODY_BIT) row.body = input.value();
  return row as ObservationEventRow;
}
