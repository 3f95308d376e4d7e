import type { CollectorHealthRow } from '../projections/rows.js';
import type { DeviceConflicts, HealthStore } from '../storage/telemetry-ports.js';

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
  };
  /** per device: its conflicting duplicates (an event id it reused with other content) and the latest of them */
  conflictingDuplicates: DeviceConflicts[];
  /** batches of this account still waiting for normalization */
  queued: number;
}

/**
 * Collector/adapter health of an account: one entry per emitting process of each device (its
 * last export is the heartbeat; stale after `staleAfterMs`), with what the hub rejected, dropped
 * or folded and what the client reported dropping itself, and per device the events the dedupe
 * dropped although their content differed from the copy kept (`conflicts`, from the live projections).
 */
export function healthReport(store: HealthStore, accountId: string, nowMs: number, staleAfterMs: number, queued: number, conflicts: DeviceConflicts[]): HealthReport {
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
  };
  if (processes[0]) summary.lastSeen = processes[0].lastSeen;
  return { accountId, processes, summary, conflictingDuplicates: conflicts, queued };
}
