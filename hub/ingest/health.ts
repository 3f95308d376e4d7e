import { createHash } from 'node:crypto';
import type { OtlpAttributes, OtlpMetric, OtlpRequest, ResourceGroup } from '../../core/telemetry/otlp/index.js';
import { METRIC_AGENT_SKILL_TELEMETRY_DROPPED_COUNT } from '../../schemas/generated/semconv.js';
import type { CollectorHealthRow } from '../projections/rows.js';
import type { HealthStore } from '../storage/telemetry-ports.js';

/** What one resource group of a request contributed, for its collector/adapter health row. */
export interface ResourceDelivery {
  records: number;
  rejected: number;
  droppedContent: number;
  typeMismatches: number;
  unknownEnumValues: number;
  droppedLimits: number;
  foldedCardinality: number;
  sanitized: number;
}

const NOTHING: ResourceDelivery = { records: 0, rejected: 0, droppedContent: 0, typeMismatches: 0, unknownEnumValues: 0, droppedLimits: 0, foldedCardinality: 0, sanitized: 0 };

const s = (a: OtlpAttributes, k: string): string | undefined => (typeof a[k] === 'string' && a[k] !== '' ? (a[k] as string).slice(0, 256) : undefined);

/** One point of a cumulative agent.skill.telemetry.dropped.count series: its attribute set (hashed), start time and value. */
export interface CumulativeDrops {
  series: string;
  /** startTimeUnixNano ('0' when not sent) */
  start: string;
  value: number;
}

/** The drops a client reported in one metrics export: delta points summed, cumulative points per series. */
export interface ClientDrops {
  delta: number;
  cumulative?: CumulativeDrops[];
}

/** A series' identity: its attribute set in key order (int64 values may be bigints). */
const seriesOf = (a: OtlpAttributes): string =>
  createHash('sha256').update(JSON.stringify(Object.keys(a).sort().map((k) => [k, a[k]]), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).digest('hex').slice(0, 16);

/** The agent.skill.telemetry.dropped.count the client reported in this metrics export, and how to combine it. */
function clientDropped(req: OtlpRequest, index: number): ClientDrops {
  if (req.signal !== 'metrics') return { delta: 0 };
  let delta = 0;
  const cumulative = new Map<string, CumulativeDrops>();
  for (const scope of req.resources[index].scopes) {
    for (const m of scope.items as OtlpMetric[]) {
      if (m.name !== METRIC_AGENT_SKILL_TELEMETRY_DROPPED_COUNT || m.data.kind !== 'sum') continue;
      for (const p of m.data.dataPoints) {
        const value = Number(p.asInt ?? p.asDouble ?? 0);
        if (m.data.aggregationTemporality !== 2) {
          delta += value;
          continue;
        }
        const point = { series: seriesOf(p.attributes), start: p.startTimeUnixNano ?? '0', value };
        // a series twice in one export (it should not be): its latest run, its highest value
        const seen = cumulative.get(point.series);
        if (!seen || BigInt(point.start) > BigInt(seen.start) || (point.start === seen.start && value > seen.value)) cumulative.set(point.series, point);
      }
    }
  }
  return cumulative.size ? { delta, cumulative: [...cumulative.values()] } : { delta };
}

/** Cumulative series a health row remembers (the least recently updated are forgotten first). */
const MAX_SERIES = 32;

/** A health row with what the cumulative drops of the next export are compared with. */
export type HealthRowWithSeries = CollectorHealthRow & { clientDroppedSeries?: CumulativeDrops[] };

/**
 * The drops cumulative points add to a row, and the series the row remembers afterwards (OTel data
 * model, sums): a series seen before under the same start time adds the difference from its last
 * value; a new series, or a new start time (the exporter restarted, counting from 0 again), adds its
 * value. A point older than what the row last saw of its series (an earlier run's, or a lower
 * value of the same run, delivered late) adds nothing. Without a start time ('0') a lower value
 * is the only sign of a restart.
 */
export function addCumulativeDrops(prev: CumulativeDrops[], points: CumulativeDrops[]): { added: number; series: CumulativeDrops[] } {
  const series = [...prev];
  let added = 0;
  for (const p of points) {
    const i = series.findIndex((s) => s.series === p.series);
    const last = series[i];
    if (!last || BigInt(p.start) > BigInt(last.start)) added += p.value;
    else if (p.start !== last.start) continue;
    else if (p.value >= last.value) added += p.value - last.value;
    else if (p.start === '0') added += p.value;
    else continue;
    if (last) series.splice(i, 1);
    series.push(p);
  }
  return { added, series: series.slice(-MAX_SERIES) };
}

/**
 * The row's clientDropped after an export, and the series it remembers. A row written before the
 * hub kept series (clientDropped held the highest cumulative total seen) counts this export's
 * cumulative total the old way once, so its drops are not counted twice.
 */
function dropsAfter(prev: HealthRowWithSeries | undefined, reported: ClientDrops): { clientDropped: number; clientDroppedSeries?: CumulativeDrops[] } {
  const before = prev?.clientDropped ?? 0;
  if (!reported.cumulative) return { clientDropped: before + reported.delta, ...(prev?.clientDroppedSeries ? { clientDroppedSeries: prev.clientDroppedSeries } : {}) };
  if (prev && !prev.clientDroppedSeries && before > 0) {
    const total = reported.cumulative.reduce((n, p) => n + p.value, 0);
    return { clientDropped: Math.max(before, total) + reported.delta, clientDroppedSeries: reported.cumulative.slice(-MAX_SERIES) };
  }
  const { added, series } = addCumulativeDrops(prev?.clientDroppedSeries ?? [], reported.cumulative);
  return { clientDropped: before + added + reported.delta, clientDroppedSeries: series };
}

/** What the health rows need of one resource group of a request (small: taken before the request is dropped). */
export interface DeliveryFacts {
  identity: { serviceName: string; serviceInstanceId?: string; hostName?: string; adapterName?: string; adapterVersion?: string };
  delivery: ResourceDelivery;
  clientDropped: ClientDrops;
  schemaUrl?: string;
}

/** The schema URL of a resource group's last records that had one: per scope its own, else the resource's (as normalize-batch.ts resourceContext reads it). */
function schemaUrlOf(group: ResourceGroup<unknown>): { schemaUrl?: string } {
  let url = group.schemaUrl || undefined;
  for (const scope of group.scopes) url = scope.schemaUrl || group.schemaUrl || url;
  return url ? { schemaUrl: url } : {};
}

/** The health facts of each resource group of a request. */
export function deliveryFacts(req: OtlpRequest, deliveries: ResourceDelivery[]): DeliveryFacts[] {
  return req.resources.map((group, i) => {
    const a = group.resource.attributes;
    return {
      identity: {
        serviceName: s(a, 'service.name') ?? 'unknown_service',
        serviceInstanceId: s(a, 'service.instance.id'),
        hostName: s(a, 'agent.host.name'),
        adapterName: s(a, 'agent.adapter.name'),
        adapterVersion: s(a, 'agent.adapter.version'),
      },
      delivery: deliveries[i] ?? NOTHING,
      clientDropped: clientDropped(req, i),
      ...schemaUrlOf(group),
    };
  });
}

/** The key of a process's health row: its device and resource identity. */
export const healthKey = (deviceId: string, identity: DeliveryFacts['identity']): string => createHash('sha256').update(JSON.stringify([deviceId, identity])).digest('hex').slice(0, 32);

/**
 * Updates the health rows of the processes behind a request (one per resource: device, service,
 * instance, adapter). `lastSeen` is the heartbeat; the counters say what the hub refused or cut.
 * A `replay` (a batch the account already delivered, byte for byte) is a heartbeat and counts in
 * `replays`, but adds no batch, records or drops: it was acknowledged and ignored.
 */
export function recordDelivery(store: HealthStore, accountId: string, deviceId: string, signal: OtlpRequest['signal'], facts: DeliveryFacts[], nowIso: string, replay = false): void {
  for (const { identity, delivery, clientDropped: reported, schemaUrl: url } of facts) {
    // a replay with no row yet (its first delivery's row is gone) starts one without counting anything
    const d = replay ? NOTHING : delivery;
    const dropped = replay ? { delta: 0 } : reported;
    const key = healthKey(deviceId, identity);
    const prev: HealthRowWithSeries | undefined = store.get(accountId, key);
    if (replay && prev) {
      store.put(key, { ...prev, lastSeen: nowIso, lastSignal: signal, replays: (prev.replays ?? 0) + 1 });
      continue;
    }
    const row: HealthRowWithSeries = {
      accountId,
      deviceId,
      ...Object.fromEntries(Object.entries(identity).filter(([, v]) => v !== undefined)),
      serviceName: identity.serviceName,
      firstSeen: prev?.firstSeen ?? nowIso,
      lastSeen: nowIso,
      lastSignal: signal,
      batches: (prev?.batches ?? 0) + (replay ? 0 : 1),
      ...(replay ? { replays: 1 } : {}),
      records: (prev?.records ?? 0) + d.records,
      rejected: (prev?.rejected ?? 0) + d.rejected,
      droppedContent: (prev?.droppedContent ?? 0) + d.droppedContent,
      typeMismatches: (prev?.typeMismatches ?? 0) + d.typeMismatches,
      unknownEnumValues: (prev?.unknownEnumValues ?? 0) + d.unknownEnumValues,
      droppedLimits: (prev?.droppedLimits ?? 0) + d.droppedLimits,
      foldedCardinality: (prev?.foldedCardinality ?? 0) + d.foldedCardinality,
      sanitized: (prev?.sanitized ?? 0) + d.sanitized,
      ...dropsAfter(prev, dropped),
    };
    const schemaUrl = url ?? prev?.lastSchemaUrl;
    if (schemaUrl) row.lastSchemaUrl = schemaUrl.slice(0, 256);
    store.put(key, row);
  }
}
