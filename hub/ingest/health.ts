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

/** The agent.skill.telemetry.dropped.count the client reported in this metrics export, and how to combine it. */
function clientDropped(req: OtlpRequest, index: number): { delta: number; cumulative?: number } {
  if (req.signal !== 'metrics') return { delta: 0 };
  let delta = 0;
  let cumulative: number | undefined;
  for (const scope of req.resources[index].scopes) {
    for (const m of scope.items as OtlpMetric[]) {
      if (m.name !== METRIC_AGENT_SKILL_TELEMETRY_DROPPED_COUNT || m.data.kind !== 'sum') continue;
      const total = m.data.dataPoints.reduce((n, p) => n + Number(p.asInt ?? p.asDouble ?? 0), 0);
      if (m.data.aggregationTemporality === 2) cumulative = (cumulative ?? 0) + total;
      else delta += total;
    }
  }
  return { delta, cumulative };
}

/** What the health rows need of one resource group of a request (small: taken before the request is dropped). */
export interface DeliveryFacts {
  identity: { serviceName: string; serviceInstanceId?: string; hostName?: string; adapterName?: string; adapterVersion?: string };
  delivery: ResourceDelivery;
  clientDropped: { delta: number; cumulative?: number };
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
    const key = createHash('sha256').update(JSON.stringify([deviceId, identity])).digest('hex').slice(0, 32);
    const prev = store.get(accountId, key);
    if (replay && prev) {
      store.put(key, { ...prev, lastSeen: nowIso, lastSignal: signal, replays: (prev.replays ?? 0) + 1 });
      continue;
    }
    const row: CollectorHealthRow = {
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
      clientDropped: dropped.cumulative !== undefined ? Math.max(prev?.clientDropped ?? 0, dropped.cumulative) : (prev?.clientDropped ?? 0) + dropped.delta,
    };
    const schemaUrl = url ?? prev?.lastSchemaUrl;
    if (schemaUrl) row.lastSchemaUrl = schemaUrl.slice(0, 256);
    store.put(key, row);
  }
}
