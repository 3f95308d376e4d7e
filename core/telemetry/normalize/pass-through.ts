import { createHash } from 'node:crypto';
import { EVENTS, type EventName } from '../../../schemas/generated/semconv.js';
import type { OtlpAttributes, OtlpLogRecord, OtlpScope } from '../otlp/types.js';
import { attributeProblem, isErrorType, RESOURCE_ATTRIBUTES } from '../attributes.js';
import { eventAttributeKeys, metadataAttributeKeys, type ResourceAttributes } from '../event.js';
import { isSpanId, isTraceId } from '../ids.js';
import type { NormalizerEngine } from './engine.js';

/**
 * A record that is already an agent.skill.* / agent.* / git.ai.* catalog event (emitted by a
 * Forge component with the OTel SDK, e.g. a hook) is re-checked against the catalog and passes
 * through with only catalog attributes. Records that are not catalog events are dropped: the
 * observer exports metadata it understands, never a host's raw logs.
 *
 * A catalog event without agent.skill.event.id gets a batch-local fingerprint as its id (spec §8:
 * "when a source cannot supply one, derive a batch-local fingerprint and record that deduplication
 * is inferred"), marked forge.dedup.basis = batch_fingerprint, the same basis the hub records.
 */
export function passThroughRecord(engine: NormalizerEngine, nativeResource: OtlpAttributes, scope: OtlpScope, rec: OtlpLogRecord): void {
  const name = rec.eventName;
  if (!name || !(name in EVENTS)) return;
  const eventName = name as EventName;
  const claimed = rec.attributes['agent.skill.event.id'];
  const hasId = typeof claimed === 'string' && claimed !== '';
  // the opt-in attributes (local paths, commits, branch and repository names) only with content on
  const allowed = engine.ctx.content ? eventAttributeKeys(eventName) : metadataAttributeKeys(eventName);
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rec.attributes)) if (allowed.has(k) && !SET_HERE.has(k)) attrs[k] = v;
  // the source's own ordering is kept when it is one (a malformed sequence is left out, not the event)
  const sequence = rec.attributes['agent.skill.event.sequence'];
  if (sequence !== undefined && !attributeProblem('agent.skill.event.sequence', sequence)) attrs['agent.skill.event.sequence'] = sequence;
  // error.type is a low-cardinality type (OTel semconv), not an error message with paths in it
  if ('error.type' in attrs && !isErrorType(attrs['error.type'])) attrs['error.type'] = '_OTHER';
  const resource: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(nativeResource)) if (RESOURCE_ATTRIBUTES.has(k) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) resource[k] = v;
  if (typeof resource['service.name'] !== 'string') resource['service.name'] = scope.name || 'unknown';
  let eventId: string;
  if (hasId) eventId = claimed;
  else {
    eventId = batchFingerprint(['log', eventName, rec.timeUnixNano, rec.observedTimeUnixNano, rec.traceId, rec.spanId, rec.attributes, nativeResource['service.name'], nativeResource['service.instance.id'], scope.name], engine.batchOccurrences);
    attrs['forge.dedup.basis'] = 'batch_fingerprint';
  }
  const traceId = isTraceId(rec.traceId) ? rec.traceId : undefined;
  try {
    engine.passThrough(eventName, eventId, attrs, resource as ResourceAttributes, rec.timeUnixNano, traceId, traceId && isSpanId(rec.spanId) ? rec.spanId : undefined);
  } catch (e) {
    // an event that breaks the convention is dropped (and counted), never exported half-valid
    if ((e as { code?: string }).code !== 'SF_E_TELEMETRY_EVENT') throw e;
    engine.rejected++;
  }
}

/** Attributes the observer sets itself: the event id, the sequence (checked above) and the dedup basis. */
const SET_HERE = new Set(['agent.skill.event.id', 'agent.skill.event.sequence', 'forge.dedup.basis']);

/** Deterministic JSON: object keys sorted, bigints and bytes spelled out. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (x instanceof Uint8Array) return Buffer.from(x).toString('base64');
    if (x && typeof x === 'object' && !Array.isArray(x)) return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return x;
  }) ?? 'undefined';
}

/**
 * `fp_<32 hex>`: a fingerprint of the record's content plus its occurrence among identical records
 * of the same batch (two identical records in one batch stay two; the same batch delivered again
 * gets the same ids and dedupes). Mirrors the hub's fingerprint (hub/normalize/event.ts).
 */
export function batchFingerprint(parts: unknown, occurrences: Map<string, number>): string {
  const base = createHash('sha256').update(canonical(parts)).digest('hex');
  const n = occurrences.get(base) ?? 0;
  occurrences.set(base, n + 1);
  return n === 0 ? `fp_${base.slice(0, 32)}` : `fp_${createHash('sha256').update(`${base}:${n}`).digest('hex').slice(0, 32)}`;
}
