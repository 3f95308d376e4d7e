import { EVENTS, type EventName } from '../../../schemas/generated/semconv.js';
import type { OtlpAttributes, OtlpLogRecord, OtlpScope } from '../otlp/types.js';
import { isErrorType, RESOURCE_ATTRIBUTES } from '../attributes.js';
import { eventAttributeKeys, metadataAttributeKeys, type ResourceAttributes } from '../event.js';
import { isSpanId, isTraceId } from '../ids.js';
import type { NormalizerEngine } from './engine.js';

/**
 * A record that is already an agent.skill.* / agent.* / git.ai.* catalog event (emitted by a
 * Forge component with the OTel SDK, e.g. a hook) is re-checked against the catalog and passes
 * through with only catalog attributes. Records that are not catalog events are dropped: the
 * observer exports metadata it understands, never a host's raw logs.
 */
export function passThroughRecord(engine: NormalizerEngine, nativeResource: OtlpAttributes, scope: OtlpScope, rec: OtlpLogRecord): void {
  const name = rec.eventName;
  if (!name || !(name in EVENTS)) return;
  const eventName = name as EventName;
  const eventId = rec.attributes['agent.skill.event.id'];
  if (typeof eventId !== 'string' || eventId === '') return;
  // the opt-in attributes (local paths, commits, branch and repository names) only with content on
  const allowed = engine.ctx.content ? eventAttributeKeys(eventName) : metadataAttributeKeys(eventName);
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rec.attributes)) if (allowed.has(k) && k !== 'agent.skill.event.sequence' && k !== 'agent.skill.event.id') attrs[k] = v;
  // error.type is a low-cardinality type (OTel semconv), not an error message with paths in it
  if ('error.type' in attrs && !isErrorType(attrs['error.type'])) attrs['error.type'] = '_OTHER';
  const resource: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(nativeResource)) if (RESOURCE_ATTRIBUTES.has(k) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) resource[k] = v;
  if (typeof resource['service.name'] !== 'string') resource['service.name'] = scope.name || 'unknown';
  const traceId = isTraceId(rec.traceId) ? rec.traceId : undefined;
  try {
    engine.passThrough(eventName, eventId, attrs, resource as ResourceAttributes, rec.timeUnixNano, traceId, traceId && isSpanId(rec.spanId) ? rec.spanId : undefined);
  } catch (e) {
    // an event that breaks the convention is dropped (and counted), never exported half-valid
    if ((e as { code?: string }).code !== 'SF_E_TELEMETRY_EVENT') throw e;
    engine.rejected++;
  }
}
