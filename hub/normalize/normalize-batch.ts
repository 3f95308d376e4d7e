import type { OtlpLogRecord, OtlpRequest, OtlpSpan, ResourceGroup, ScopeGroup } from '../../core/telemetry/otlp/index.js';
import { OTHER_VALUE } from '../ingest/cardinality.js';
import { REDACTED_NAME } from '../ingest/names.js';
import { applyEvent } from '../projections/apply.js';
import { BatchCachedWriter } from '../projections/batch-cache.js';
import { RollupAccumulator } from '../projections/rollups.js';
import type { ActivationSpanEnd } from '../projections/activations.js';
import type { ActivationResult, ObservationEventRow } from '../projections/rows.js';
import type { ProjectionWriter } from '../storage/telemetry-ports.js';
import { fingerprint, logEvent, spanCatalogEvents, spanEvent, type BatchContext, type ResourceContext } from './event.js';
import { msOfIso, str } from './values.js';

export interface NormalizeStats {
  /** events applied to the projections */
  events: number;
  /** events skipped because their id was already stored (replays, retries, duplicates) */
  duplicates: number;
  /**
   * of `duplicates`, copies whose content differs from the event kept (conflicting duplicates),
   * each distinct copy once: a redelivery of a copy already recorded is an ordinary duplicate
   */
  conflicts: number;
}

/** One normalized event of a batch: its observation_events row, plus the end of an activation span. */
export interface BatchEvent {
  row: ObservationEventRow;
  span?: ActivationSpanEnd;
  /** the whole row, when `row` is only its head (prepared.ts): read only for a duplicate */
  full?: () => ObservationEventRow;
}

const RESULTS: ReadonlySet<string> = new Set<ActivationResult>(['ok', 'error', 'blocked', 'cancelled', 'unknown']);

/**
 * How an activation span ended, from its agent.skill.result (the spec's enum, mapped as it is:
 * blocked and cancelled are neither a load nor a failure) and its status: an error status without
 * a more specific result is `error`; no result and no error is `ok`; a value outside the enum is `unknown`.
 */
export function spanResult(result: string | undefined, statusCode: number | undefined): ActivationResult {
  if (result === 'blocked' || result === 'cancelled') return result;
  if (statusCode === 2 || result === 'error') return 'error';
  if (result === undefined) return 'ok';
  return RESULTS.has(result) ? (result as ActivationResult) : 'unknown';
}


/**
 * The resource context of a scope's records. Their schema URL is the scope's: OTLP defines
 * ScopeLogs/ScopeSpans `schema_url` as the schema of the records' own attributes (where the
 * observer puts the convention's URL), and ResourceLogs/ResourceSpans `schema_url` as that of
 * the resource, which only stands in when the scope has none.
 */
export function resourceContext(group: ResourceGroup<unknown>, scope: ScopeGroup<unknown>): ResourceContext {
  const schemaUrl = scope.schemaUrl || group.schemaUrl;
  return schemaUrl ? { attributes: group.resource.attributes, schemaUrl } : { attributes: group.resource.attributes };
}

/**
 * The events of one admitted raw batch, in record order. Pure over the request and the batch
 * context (server-authoritative identity). Metrics carry no events (spec: rollups come from
 * events, never from client metrics) and are only kept raw.
 */
export function batchEvents(req: OtlpRequest, ctx: BatchContext): BatchEvent[] {
  const out: BatchEvent[] = [];
  if (req.signal === 'metrics') return out;
  const occurrences = new Map<string, number>();
  for (const group of req.resources) {
    for (const scope of group.scopes) {
      const res = resourceContext(group, scope);
      if (req.signal === 'logs') {
        for (const rec of scope.items as OtlpLogRecord[]) out.push({ row: logEvent(ctx, res, rec, occurrences) });
        continue;
      }
      for (const span of scope.items as OtlpSpan[]) {
        const row = spanEvent(ctx, res, span);
        const result = spanResult(str(span.attributes, 'agent.skill.result'), span.status?.code);
        out.push(row.eventName === 'span.agent.skill.activation' ? { row, span: { endNanos: span.endTimeUnixNano, result } } : { row });
        for (const ev of spanCatalogEvents(ctx, res, span)) out.push({ row: ev });
      }
    }
  }
  return out;
}

/**
 * Applies a batch's events to the projections, inside the caller's transaction. Every event is
 * deduplicated on its id, so applying the same batch any number of times changes nothing after
 * the first; a duplicate whose content differs from the copy kept is recorded as a conflicting
 * duplicate (once per distinct copy, so that too is the same after the first). `encoded(i)` may give event i's row already in the store's encoding (see
 * ProjectionStore.encodeEvents), made ahead of the transaction.
 */
export function applyEvents(store: ProjectionWriter, events: readonly BatchEvent[], normalizerVersion: string, encoded?: (i: number) => Uint8Array): NormalizeStats {
  const stats: NormalizeStats = { events: 0, duplicates: 0, conflicts: 0 };
  const w = new BatchCachedWriter(store);
  const rollups = new RollupAccumulator(normalizerVersion);
  const seen = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const { row, span } = events[i];
    if (!seen.has(row.eventId)) {
      seen.add(row.eventId);
      if (applyEvent(w, row, msOfIso(row.time), rollups, span, encoded?.(i))) {
        stats.events++;
        continue;
      }
    }
    // the only extra work of the dedupe: a copy already stored (in an earlier batch or this one)
    stats.duplicates++;
    if (recordIfConflicting(w, events[i])) stats.conflicts++;
  }
  rollups.flush(w);
  w.flush();
  return stats;
}

/** Row fields the hub sets, not the device: a retry may differ in them from the original. */
const SERVER_FIELDS: ReadonlySet<string> = new Set(['rawBatchId', 'normalizerVersion', 'repositoryId', 'repositoryResolution']);

/** Fields sameContent compares its own way (or, for the server's, not at all). */
const OWN_RULES: ReadonlySet<string> = new Set([...SERVER_FIELDS, 'time', 'timeSource', 'observedTime', 'spanName', 'attributes', 'body']);

/** What admission put for a value it folded (cardinality) or redacted (metadata-only names): the original is unknown. */
const isStandIn = (v: unknown): boolean => v === OTHER_VALUE || v === REDACTED_NAME;

function sameValue(x: unknown, y: unknown): boolean {
  if (x === y || isStandIn(x) || isStandIn(y)) return true;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => sameValue(v, y[i]));
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object' || Array.isArray(x) || Array.isArray(y)) return false;
  const a = x as Record<string, unknown>;
  const b = y as Record<string, unknown>;
  return Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => k in b && sameValue(a[k], b[k]));
}

/** Equal where both have a value: one without it had it dropped by admission under another content setting. */
const sameWhereBoth = (x: unknown, y: unknown): boolean => x === undefined || y === undefined || sameValue(x, y);

/**
 * Whether two copies of a device's event id carry the same event, as far as admission lets the hub
 * tell: what admission made of a retry can differ from the original (a value folded in another
 * cardinality window, a span name cut to its operation, attributes and bodies dropped or kept
 * under another content setting), and a time taken at receipt or judged plausible against another
 * receipt says nothing about the event.
 */
function sameContent(a: ObservationEventRow, b: ObservationEventRow): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) if (!OWN_RULES.has(k) && !sameValue(x[k], y[k])) return false;
  if (a.timeSource === b.timeSource && a.timeSource !== 'received' && (a.time !== b.time || !sameWhereBoth(a.observedTime, b.observedTime))) return false;
  if (!sameWhereBoth(a.body, b.body)) return false;
  for (const k of Object.keys(a.attributes)) if (!sameWhereBoth(a.attributes[k], b.attributes[k])) return false;
  const [m, n] = [a.spanName ?? '', b.spanName ?? ''];
  return sameValue(m, n) || m.startsWith(`${n} `) || n.startsWith(`${m} `);
}

/** A digest of an event copy's content: the same for every delivery of the copy, live and on rebuild. */
function contentDigest(e: ObservationEventRow): string {
  const content: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (!SERVER_FIELDS.has(k) && !(k === 'time' && e.timeSource === 'received')) content[k] = v;
  return fingerprint(content, new Map()).slice(3);
}

/**
 * A duplicate whose content differs from the copy its device stored is a conflicting duplicate:
 * the first copy stays, the dropped one is recorded (ProjectionWriter.recordConflict). True when
 * newly recorded.
 */
function recordIfConflicting(w: ProjectionWriter, e: BatchEvent): boolean {
  const copy = e.full?.() ?? e.row;
  const kept = w.storedEvent(copy.accountId, copy.deviceId, copy.eventId);
  // a generation that deduplicated per account may hold another device's event under the id: no conflict of this device
  if (!kept || kept.deviceId !== copy.deviceId || sameContent(kept, copy)) return false;
  return w.recordConflict({
    accountId: copy.accountId, deviceId: copy.deviceId, eventId: copy.eventId, digest: contentDigest(copy),
    eventName: copy.eventName, time: copy.time, rawBatchId: copy.rawBatchId, keptRawBatchId: kept.rawBatchId,
  });
}

/**
 * The versioned, idempotent normalizer: one admitted raw batch -> projection writes, inside the
 * caller's transaction. Events are deduplicated on their agent.skill.event.id (or, when the
 * source has none, a batch fingerprint marked `batch_fingerprint`).
 */
export function normalizeBatch(store: ProjectionWriter, req: OtlpRequest, ctx: BatchContext): NormalizeStats {
  return applyEvents(store, batchEvents(req, ctx), ctx.normalizerVersion);
}
