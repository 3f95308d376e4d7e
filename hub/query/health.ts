import type { CollectorHealthRow } from '../projections/rows.js';
import type { DeviceConflicts, HealthStore, NormalizationFailure } from '../storage/telemetry-ports.js';

/** How many of the account's failed batches the health view lists. */
export const RECENT_FAILURES = 10;

export interface HealthReport {
  accountId: string;
  processes: (CollectorHealthRow & { stale: boolean })[];
  summary: {
    devices: number;
    processes: number;
    stale: number;
    lastSeen?: string;
    records: number;
    /** deliveries of batches already stored (acknowledged and ignored) */
    replays: number;
    rejected: number;
    droppedContent: number;
    /** registry attributes whose value was not of the registry's type (schema validation failures) */
    typeMismatches: number;
    /** enum values outside the registry's members (kept) */
    unknownEnumValues: number;
    droppedLimits: number;
    foldedCardinality: number;
    clientDropped: number;
    /** events dropped by the dedupe whose content differed from the copy kept (conflicting duplicates) */
    conflictingDuplicates: number;
    /** acknowledged batches the normalizer gave up on: their records are in `records` but not in the projections */
    normalizationFailedBatches: number;
    /** the records those batches carried */
    normalizationFailedRecords: number;
  };
  /** per device: its conflicting duplicates (an event id it reused with other content) and the latest of them */
  conflictingDuplicates: DeviceConflicts[];
  /** batches of this account still waiting for normalization */
  queued: number;
  /** the latest RECENT_FAILURES batches the normalizer gave up on, newest first (totals in `summary`) */
  normalizationFailed: Omit<NormalizationFailure, 'accountId'>[];
}

/**
 * Collector/adapter health of an account: one entry per emitting process of each device (its
 * last export is the heartbeat; stale after `staleAfterMs`), with what the hub rejected, dropped
 * or folded and what the client reported dropping itself, per device the events the dedupe
 * dropped although their content differed from the copy kept (`conflicts`, from the live
 * projections), and the acknowledged batches the normalizer gave up on (NormalizationFailure).
 */
export function healthReport(store: HealthStore, accountId: string, nowMs: number, staleAfterMs: number, queued: number, conflicts: DeviceConflicts[]): HealthReport {
  const failures = store.normalizationFailures(accountId);
  const processes = store
    .list(accountId)
    // rows written before the schema validation counters existed have none: zero, so every row has the same shape
    .map((r) => ({ ...r, typeMismatches: r.typeMismatches ?? 0, unknownEnumValues: r.unknownEnumValues ?? 0, stale: nowMs - Date.parse(r.lastSeen) > staleAfterMs }))
    .sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0));
  const sum = (k: 'records' | 'rejected' | 'droppedContent' | 'typeMismatches' | 'unknownEnumValues' | 'droppedLimits' | 'foldedCardinality' | 'clientDropped') => processes.reduce((n, p) => n + p[k], 0);
  const summary: HealthReport['summary'] = {
    devices: new Set(processes.map((p) => p.deviceId)).size,
    processes: processes.length,
    stale: processes.filter((p) => p.stale).length,
    records: sum('records'),
    replays: processes.reduce((n, p) => n + (p.replays ?? 0), 0),
    rejected: sum('rejected'),
    droppedContent: sum('droppedContent'),
    typeMismatches: sum('typeMismatches'),
    unknownEnumValues: sum('unknownEnumValues'),
    droppedLimits: sum('droppedLimits'),
    foldedCardinality: sum('foldedCardinality'),
    clientDropped: sum('clientDropped'),
    conflictingDuplicates: conflicts.reduce((n, d) => n + d.count, 0),
    normalizationFailedBatches: failures.length,
    normalizationFailedRecords: failures.reduce((n, f) => n + f.records, 0),
  };
  if (processes[0]) summary.lastSeen = processes[0].lastSeen;
  const normalizationFailed = failures
    .sort((a, b) => (a.failedAt < b.failedAt ? 1 : a.failedAt > b.failedAt ? -1 : 0))
    .slice(0, RECENT_FAILURES)
    .map(({ accountId: _, ...f }) => f);
  return { accountId, processes, summary, conflictingDuplicates: conflicts, queued, normalizationFailed };
}
