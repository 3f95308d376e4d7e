import type { OtlpLimits } from '../../core/telemetry/otlp/index.js';

/**
 * Every limit of the hub's OTLP ingest in one place (numbers follow reliability-anchors.md §7 and
 * the OpenTelemetry Collector's defaults). Each is overridable per hub through
 * `HubOptions.telemetry.limits`; tests shrink them to exercise the overload and cardinality paths.
 */
export interface IngestLimits {
  /** request body as received (compressed) — 413 above it */
  maxRawBytes: number;
  /** body after gunzip — 413 above it, checked while inflating */
  maxDecompressedBytes: number;
  /** log records, spans or metric data points accepted per request; the rest are rejected in partial_success */
  maxRecordsPerRequest: number;
  /** attributes kept per record, resource or scope; the rest are dropped and counted */
  maxAttributesPerRecord: number;
  /** characters kept of one attribute (or body) string value */
  maxAttributeValueLength: number;
  /** AnyValue nesting depth; deeper values are nulled and counted */
  maxValueDepth: number;
  /** distinct string values one non-identity attribute key may take per account and window; new values past it fold into `__other__` */
  maxDistinctValuesPerKey: number;
  /** attribute keys outside the registry the cardinality guard tracks per account and window; new values under further keys fold */
  maxCardinalityKeysPerAccount: number;
  /** characters of an attribute key; longer keys (only possible outside the registry, with content on) are dropped and counted */
  maxAttributeKeyLength: number;
  /** length of the cardinality window */
  cardinalityWindowMs: number;
  /** accounts tracked by the cardinality guard at once (least recently seen are forgotten) */
  maxCardinalityAccounts: number;
  /** identity values (event, activation, session ids...) longer than this are replaced by a hash */
  maxIdentityLength: number;
  /** batches waiting for normalization before every request gets 503 + Retry-After */
  maxQueuedBatches: number;
  /** batches one account may have waiting before its requests get 429 + Retry-After */
  maxQueuedBatchesPerAccount: number;
  /** Retry-After seconds sent with 429 and 503 */
  retryAfterSeconds: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_INGEST_LIMITS: IngestLimits = {
  maxRawBytes: 20 * MiB,
  maxDecompressedBytes: 20 * MiB,
  maxRecordsPerRequest: 8192,
  maxAttributesPerRecord: 128,
  maxAttributeValueLength: 4096,
  maxValueDepth: 64,
  maxDistinctValuesPerKey: 1000,
  maxCardinalityKeysPerAccount: 256,
  maxAttributeKeyLength: 256,
  cardinalityWindowMs: 60 * 60 * 1000,
  maxCardinalityAccounts: 10_000,
  maxIdentityLength: 128,
  maxQueuedBatches: 2000,
  maxQueuedBatchesPerAccount: 500,
  retryAfterSeconds: 5,
};

/** Raw-batch retention per account tier, in days (spec: 90 days free, at least one year paid). */
export const RETENTION_DAYS = { free: 90, paid: 365 } as const;
export type RetentionTier = keyof typeof RETENTION_DAYS;

/** The defaults with `overrides` applied. */
export function resolveIngestLimits(overrides: Partial<IngestLimits> = {}): IngestLimits {
  return { ...DEFAULT_INGEST_LIMITS, ...overrides };
}

/** The decoder limits (core/telemetry/otlp) that correspond to the ingest limits. */
export function decoderLimits(limits: IngestLimits): OtlpLimits {
  return {
    maxBodyBytes: limits.maxDecompressedBytes,
    maxAttributes: limits.maxAttributesPerRecord,
    maxValueDepth: limits.maxValueDepth,
    maxStringLength: limits.maxAttributeValueLength,
    maxItems: limits.maxRecordsPerRequest,
  };
}
