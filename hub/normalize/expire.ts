import type { SkillActivationRow } from '../projections/rows.js';
import type { ExpiredEvent, ProjectionReader } from '../storage/telemetry-ports.js';
import { nanosOfIso } from './values.js';
import { spanResult, type BatchEvent } from './normalize-batch.js';

/**
 * The facts a raw batch about to be swept leaves behind (RawBatchStore.expire): every event the
 * batch normalizes to, its duplicates included, so a rebuild applying them deduplicates and
 * records conflicting duplicates as the live normalizer did. An event the live generation stored
 * from this batch is kept exactly as stored (its normalizer version and repository), so what the
 * query API answers for it does not change when a rebuild carries it over.
 */
export function expiringEvents(live: ProjectionReader, batchId: string, events: readonly BatchEvent[]): ExpiredEvent[] {
  return events.map(({ row, span }) => {
    const stored = live.getEvent(row.accountId, row.eventId, row.deviceId);
    const kept = stored && stored.rawBatchId === batchId && stored.deviceId === row.deviceId ? stored : row;
    return span ? { row: kept, span } : { row: kept };
  });
}

/**
 * How an activation span stored in `previous` ended, for carrying its row into a new generation
 * when its raw batch cannot be replayed (the end is not part of the row). The result comes from
 * the row (agent.skill.result, or `error` for an error status); the end time is the one the
 * activation row holds for that result: the earliest of its events, so merging it again gives
 * the same row. Undefined for other events.
 */
export function carriedSpanEnd(previous: ProjectionReader, row: ExpiredEvent['row']): ExpiredEvent['span'] {
  if (row.eventName !== 'span.agent.skill.activation') return undefined;
  const result = spanResult(row.result, undefined);
  const activation = row.activationId === undefined ? undefined : previous.getActivation(row.accountId, row.activationId, row.deviceId);
  const at = activation && endOf(activation, result);
  return { endNanos: at ? nanosOfIso(at) : '0', result };
}

function endOf(a: SkillActivationRow, result: NonNullable<ExpiredEvent['span']>['result']): string | undefined {
  if (result === 'ok') return a.loadedAt;
  if (result === 'error') return a.loadFailedAt;
  return a.loadEnded?.[result];
}
