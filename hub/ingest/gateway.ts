import { createHash } from 'node:crypto';
import { fromSystemError, isSfError, SfError } from '../../core/errors/index.js';
import { decompressBody, encodeOtlpRequest, type OtlpEncoding, type OtlpRequest, type OtlpSignal, type PartialSuccess } from '../../core/telemetry/otlp/index.js';
import type { TokenRecord, UserRecord } from '../storage/ports.js';
import type { RawBatchRecord, TelemetryStorage } from '../storage/telemetry-ports.js';
import { admitRequest } from './admission.js';
import type { BlobGuard } from './blob-guard.js';
import type { CardinalityGuard } from './cardinality.js';
import { decodeBody } from './decode.js';
import { resolveAtIngest } from '../normalize/repository.js';
import { deliveryFacts, recordDelivery } from './health.js';
import { deviceIdOf } from './identity.js';
import { decoderLimits, type IngestLimits } from './limits.js';
import type { TokenStore } from '../storage/ports.js';

/**
 * One OTLP/HTTP export, from body bytes to a durable, queued raw batch. The response never waits
 * for normalization: the decoded request is handed to the worker in memory, and the queue item
 * (which points at the raw batch) makes it durable.
 */

export interface IngestDeps {
  telemetry: TelemetryStorage;
  tokens: TokenStore;
  limits: IngestLimits;
  cardinality: CardinalityGuard;
  /** held over the blob put and the admit, so the sweeper never deletes a blob between them */
  blobGuard: BlobGuard;
  /**
   * Gives the normalizer the admitted request of a batch about to be queued — before its queue
   * item is committed, so the normalizer never finds the item without it.
   */
  handoff(record: RawBatchRecord, request: OtlpRequest): void;
  /** the batch's queue item is committed (`stored`), or the batch was not queued (a replay, a failure) */
  queued(record: RawBatchRecord, stored: boolean): void;
  /** batches waiting for normalization, in total and for one account */
  backlog(accountId: string): { total: number; account: number };
  now(): number;
}

export interface IngestCall {
  signal: OtlpSignal;
  encoding: OtlpEncoding;
  contentEncoding?: string;
  body: Uint8Array;
  user: UserRecord;
  token: TokenRecord;
}

export interface IngestResult {
  partial?: PartialSuccess;
  batchId?: string;
  /** false for an empty export or a batch the account already delivered */
  stored: boolean;
}

function checkBacklog(deps: IngestDeps, accountId: string): void {
  const { total, account } = deps.backlog(accountId);
  const retryAfterSeconds = deps.limits.retryAfterSeconds;
  if (total >= deps.limits.maxQueuedBatches) {
    throw new SfError('SF_E_UNAVAILABLE', `the hub is normalizing ${total} queued batches; telemetry ingest is paused`, {
      hint: `retry after ${retryAfterSeconds} s`,
      data: { retryAfterSeconds },
    });
  }
  if (account >= deps.limits.maxQueuedBatchesPerAccount) {
    throw new SfError('SF_E_RATE_LIMIT', `this account has ${account} batches waiting for normalization`, {
      hint: `send fewer, larger batches; retry after ${retryAfterSeconds} s`,
      data: { retryAfterSeconds },
    });
  }
}

function describe(parts: [number, string][]): string | undefined {
  const text = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return text.length ? text.join('; ') : undefined;
}

/** A decoded and admitted export, ready to store; it no longer holds the decoded request. */
interface Staged {
  partial?: PartialSuccess;
  /** absent when nothing was accepted */
  raw?: { record: RawBatchRecord; bytes: Uint8Array; replay: boolean };
  /** writes the export's health rows (inside the raw batch's transaction when there is one); `stored` false for a replayed batch */
  health(stored: boolean): void;
}

/**
 * Decoding, admission, the raw batch record and the handoff to the normalizer. Kept apart from
 * the storing awaits so the decoded request (thousands of objects per batch) is garbage before
 * them and dies young, instead of surviving into the old generation while the disk flushes.
 */
async function stage(deps: IngestDeps, call: IngestCall): Promise<Staged> {
  const accountId = call.user.id;
  const body = decompressBody(call.body, call.contentEncoding, deps.limits.maxDecompressedBytes);
  const decoded = await decodeBody(call.signal, call.encoding, body, decoderLimits(deps.limits));
  // the batch's identity is what was received: admission depends on state that changes between
  // deliveries (the account's content setting, the cardinality window), so a retry of the same
  // bytes must be recognised whatever admission makes of it this time
  const receivedSha256 = sha256Hex(body);
  const settings = deps.telemetry.settings.get(accountId);
  const admitted = admitRequest(decoded.request, {
    contentCollection: settings?.contentCollection === true,
    maxRecords: deps.limits.maxRecordsPerRequest,
    cardinality: deps.cardinality.scope(accountId),
    maxKeyLength: deps.limits.maxAttributeKeyLength,
    wireMode: call.encoding === 'json' ? 'json' : 'proto',
  });
  const rejected = decoded.rejected + decoded.overLimit + admitted.rejected;
  const content = settings?.contentCollection === true;
  // what the hub changed in the request
  const changes = describe([
    [decoded.rejected, `${call.signal === 'traces' ? 'spans' : 'records'} rejected: missing or malformed trace/span id`],
    [admitted.rejected + decoded.overLimit, `records rejected: over the ${deps.limits.maxRecordsPerRequest}-records-per-request limit (split the batch)`],
    [admitted.droppedContent - admitted.redactedNames, 'attributes or bodies dropped: outside the metadata-only allowlist (content collection is off)'],
    [content ? 0 : admitted.typeMismatches, "registry attributes dropped: schema validation failed, the value does not have the registry's type (fix the emitter)"],
    [admitted.redactedNames, 'names redacted: event, span, span event, scope or severity names the registry does not define (content collection is off)'],
    [decoded.droppedByLimits + admitted.droppedLimits, 'attributes or values cut by the attribute count, length or nesting limits'],
    [decoded.malformedIds, 'malformed trace, span or parent span ids dropped (their records were kept without them; ids are 16 and 8 bytes, hex in OTLP/JSON)'],
    [admitted.foldedCardinality, 'attribute values folded into __other__ by the distinct-values limit'],
    [admitted.sanitized + decoded.repaired, 'strings repaired with U+FFFD (invalid UTF-8 or UTF-16)'],
  ]);
  // kept as sent, but outside the registry: OTLP's partial_success carries warnings too (rejected 0)
  const warnings = describe([
    [content ? admitted.typeMismatches : 0, "registry attributes kept as content: schema validation failed, the value does not have the registry's type (fix the emitter)"],
    [admitted.unknownEnumValues, 'enum values kept that the registry does not define (stored as sent; a newer convention or a wrong value)'],
  ]);
  const message = [changes, warnings].filter((m) => m !== undefined).join('; ');
  const partial: PartialSuccess | undefined = message ? { rejected, errorMessage: message } : undefined;
  const deviceId = deviceIdOf(deps.tokens, call.token);
  const nowMs = deps.now();
  const deliveries = admitted.perResource.map((c, i) => ({
    records: c.accepted,
    rejected: c.rejected + (i === 0 ? decoded.rejected + decoded.overLimit : 0),
    droppedContent: c.droppedContent,
    typeMismatches: c.typeMismatches,
    unknownEnumValues: c.unknownEnumValues,
    droppedLimits: c.droppedLimits + (i === 0 ? decoded.droppedByLimits : 0),
    foldedCardinality: c.foldedCardinality,
    sanitized: c.sanitized + (i === 0 ? decoded.repaired : 0),
  }));
  const facts = deliveryFacts(decoded.request, deliveries);
  const health = (stored: boolean) => recordDelivery(deps.telemetry.health, accountId, deviceId, call.signal, facts, new Date(nowMs).toISOString(), !stored);
  if (admitted.accepted === 0) return { partial, health };

  // the raw batch is what the hub admitted: the exact bytes when admission changed nothing,
  // otherwise the admitted request re-encoded (dropped content is never retained)
  const verbatim = decoded.lossless && !changes && admitted.stamped === 0 && call.encoding === 'protobuf';
  const bytes = verbatim ? body : await encodeOtlpRequest(decoded.request, call.encoding);
  const sha256 = verbatim ? receivedSha256 : sha256Hex(bytes);
  const record: RawBatchRecord = {
    id: rawBatchId(deviceId, receivedSha256),
    accountId,
    deviceId,
    signal: call.signal,
    encoding: call.encoding,
    sha256,
    bytes: bytes.byteLength,
    verbatim,
    receivedAt: new Date(nowMs).toISOString(),
    receivedAtMs: nowMs,
    records: admitted.accepted,
    rejected,
    droppedContent: admitted.droppedContent,
    typeMismatches: admitted.typeMismatches,
    unknownEnumValues: admitted.unknownEnumValues,
    droppedLimits: decoded.droppedByLimits + admitted.droppedLimits,
    foldedCardinality: admitted.foldedCardinality,
    sanitized: admitted.sanitized + decoded.repaired,
    // the repository identity attached now, server-side (the normalizer resolves through it, live and on rebuild)
    repositories: resolveAtIngest(deps.telemetry.repositories, accountId, decoded.request),
  };
  // a replayed delivery (this device, these bytes) is acknowledged and ignored (admit finds it); the normalizer never sees it
  const replay = deps.telemetry.rawBatches.get(accountId, record.id) !== undefined;
  // handed over before anything is stored: if storing fails, `queued(record, false)` takes it back
  if (!replay) deps.handoff(record, decoded.request);
  return { partial, raw: { record, bytes, replay }, health };
}

export async function ingest(deps: IngestDeps, call: IngestCall): Promise<IngestResult> {
  checkBacklog(deps, call.user.id);
  const { partial, raw, health } = await stage(deps, call);
  if (!raw) {
    health(true);
    return { partial, stored: false };
  }
  const { record, bytes, replay } = raw;
  let stored = false;
  try {
    ({ stored } = await deps.blobGuard.hold(record.sha256, async () => {
      await deps.telemetry.rawBlobs.put(bytes, record.sha256);
      // the health rows commit with the batch: one transaction (and one disk flush) per request
      return deps.telemetry.rawBatches.admit(record, health);
    }));
  } catch (e) {
    if (isSfError(e)) throw e;
    // the hub's storage failed, not the data: retryable (reliability-anchors #61)
    throw await storageFailure(e);
  } finally {
    if (!replay) deps.queued(record, stored);
  }
  storing.stored();
  return { partial, batchId: record.id, stored };
}

/**
 * Batches the hub failed to store: the first failure of a run is logged, the rest only counted
 * until a batch is stored again (a full disk refuses every batch, thousands a minute).
 */
const storing = {
  refused: 0,
  failed(e: unknown): void {
    if (this.refused++ === 0) console.error('hub OTLP ingest could not store a batch (further failures are counted until one is stored again):', e);
  },
  stored(): void {
    if (this.refused > 1) console.error(`hub OTLP ingest stores batches again; ${this.refused} were refused meanwhile`);
    this.refused = 0;
  },
};

/**
 * The retryable answer to a batch the hub could not store. A full disk (ENOSPC, a quota,
 * MDB_MAP_FULL) is SF_E_DISK_FULL, 503 with a longer Retry-After; anything else SF_E_UNAVAILABLE.
 * An lmdb commit that failed carries its cause as a promise (`commitError`), awaited here, which
 * also keeps it from ending the process as an unhandled rejection.
 */
async function storageFailure(e: unknown): Promise<SfError> {
  const pending = (e as { commitError?: unknown } | null)?.commitError;
  const cause = pending instanceof Promise ? await pending.then(() => e, (c: unknown) => c) : e;
  storing.failed(cause);
  if (fromSystemError(cause)?.code === 'SF_E_DISK_FULL') {
    return new SfError('SF_E_DISK_FULL', 'the hub is out of disk space and could not store the telemetry', { hint: 'retry after the Retry-After delay', data: { retryAfterSeconds: 60 }, cause });
  }
  return new SfError('SF_E_UNAVAILABLE', 'the hub could not store the telemetry', { hint: 'retry later', data: { retryAfterSeconds: 5 }, cause });
}

/**
 * The id of a delivery: the device and the hash of the body as received. A replay is the same
 * device sending the same bytes again; a second device sending identical bytes made its own
 * delivery (the spec's ids are per device: the same id on two devices is two activations), so it
 * is stored under its own record. The blob stays keyed by content alone and is shared.
 */
export const rawBatchId = (deviceId: string, receivedSha256: string): string => `rb_${sha256Hex(new TextEncoder().encode(`${deviceId}\u0000${receivedSha256}`))}`;

/** sha256 of bytes (exported for tests that predict batch ids). */
export const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
