import { createHash } from 'node:crypto';
import type { OtlpAttributes, OtlpLogRecord, OtlpSpan, OtlpSpanEvent } from '../../core/telemetry/otlp/index.js';
import { EVENTS } from '../../schemas/generated/semconv.js';
import { SERVER_AUTHORITATIVE } from '../ingest/allowlist.js';
import type { JsonValue, ObservationEventRow, RepositoryResolution } from '../projections/rows.js';
import { logFingerprint } from './fingerprint.js';
import { idAttr, idList, isoNanos, jsonValue, nanosToMsFast, safeId, skitOfSkillId, str } from './values.js';

/**
 * Record -> observation_events row. Pure: the server-authoritative identity (account, device,
 * resolved repository) and the batch context come in; everything else is read from the record's
 * admitted attributes, with the resource as the fallback for host/adapter identity.
 */

export interface BatchContext {
  accountId: string;
  deviceId: string;
  batchId: string;
  receivedAtMs: number;
  normalizerVersion: string;
  resolveRepository(record: OtlpAttributes, resource: OtlpAttributes): { repositoryId?: string; resolution: RepositoryResolution };
}

export interface ResourceContext {
  attributes: OtlpAttributes;
  schemaUrl?: string;
}

const EARLIEST_PLAUSIBLE_MS = Date.UTC(2000, 0, 1);
const FUTURE_SKEW_MS = 24 * 60 * 60 * 1000;

/** The event time: the source timestamp when plausible, else the observed one, else receipt. */
function pickTime(timeNanos: string, observedNanos: string, receivedAtMs: number): { nanos: string; source: ObservationEventRow['timeSource'] } {
  const plausible = (n: string) => {
    const ms = nanosToMsFast(n);
    return ms >= EARLIEST_PLAUSIBLE_MS && ms <= receivedAtMs + FUTURE_SKEW_MS;
  };
  if (timeNanos !== '0' && plausible(timeNanos)) return { nanos: timeNanos, source: 'source' };
  if (observedNanos !== '0' && plausible(observedNanos)) return { nanos: observedNanos, source: 'observed' };
  return { nanos: `${receivedAtMs}000000`, source: 'received' };
}

/** Record attributes carried by a typed row field (dropped from `attributes` when the field holds them verbatim). */
const TYPED_FIELDS: Record<string, keyof ObservationEventRow> = {
  'agent.skill.event.id': 'eventId',
  'session.id': 'sessionId',
  'agent.turn.id': 'turnId',
  'agent.host.name': 'hostName',
  'agent.host.version': 'hostVersion',
  'agent.adapter.name': 'adapterName',
  'agent.adapter.version': 'adapterVersion',
  'gen_ai.conversation.id': 'conversationId',
  'gen_ai.agent.name': 'agentName',
  'gen_ai.request.model': 'model',
  'agent.skill.package.id': 'packageId',
  'agent.skill.id': 'skillId',
  'agent.skill.name': 'skillName',
  'artifact.version': 'artifactVersion',
  'artifact.hash': 'artifactHash',
  'agent.skill.content.hash': 'contentHash',
  'agent.skill.activation.id': 'activationId',
  'agent.skill.phase': 'phase',
  'agent.skill.result': 'result',
  'agent.skill.trigger.type': 'triggerType',
  'agent.skill.reason.code': 'reasonCode',
  'error.type': 'errorType',
  'agent.skill.evidence.source': 'evidenceSource',
  'agent.skill.evidence.fidelity': 'evidenceFidelity',
  // the deprecated name attribute of older SDKs, when it is the name the row carries
  'event.name': 'eventName',
};

/** How remainingAttributes treats a key: skipped (server-authoritative), compared with a typed field, or copied (absent). */
const ATTRIBUTE_ROUTES: ReadonlyMap<string, keyof ObservationEventRow | null> = new Map<string, keyof ObservationEventRow | null>([
  ...Object.entries(TYPED_FIELDS),
  ...[...SERVER_AUTHORITATIVE].map((k) => [k, null] as const),
]);

/**
 * The admitted record attributes a row does not already carry in a typed field (server-
 * authoritative keys never come from the client). Together with the typed fields this is every
 * admitted attribute, without storing each value twice.
 */
function remainingAttributes(attrs: OtlpAttributes, row: ObservationEventRow): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const key in attrs) {
    // one lookup instead of a server-authoritative check plus a typed-field check
    const route = ATTRIBUTE_ROUTES.get(key);
    if (route === null) continue;
    const v = attrs[key];
    if (route !== undefined && row[route] === v) continue;
    if (key === 'agent.skill.activation.ids' && Array.isArray(v) && row.activationIds && v.every((x) => typeof x === 'string' && safeId(x) === x)) continue;
    out[key] = jsonValue(v);
  }
  return out;
}

function baseRow(
  ctx: BatchContext, res: ResourceContext, attrs: OtlpAttributes, signal: ObservationEventRow['signal'],
  eventName: string, eventId: string, dedupBasis: ObservationEventRow['dedupBasis'], time: { nanos: string; source: ObservationEventRow['timeSource'] },
): ObservationEventRow {
  const r = res.attributes;
  const repo = ctx.resolveRepository(attrs, r);
  const rawSkillId = str(attrs, 'agent.skill.id');
  const skillId = rawSkillId === undefined ? undefined : safeId(rawSkillId);
  // Every row gets every field, undefined when it has none: all rows share one object shape, so
  // the row encoder and the normalizer read them with monomorphic property loads. Undefined
  // fields are never stored (the row encodings and JSON leave them out).
  const row: ObservationEventRow = {
    eventId,
    dedupBasis,
    eventName,
    signal,
    time: isoNanos(time.nanos),
    timeSource: time.source,
    observedTime: undefined,
    accountId: ctx.accountId,
    deviceId: ctx.deviceId,
    repositoryId: repo.repositoryId,
    repositoryResolution: repo.resolution,
    sessionId: idAttr(attrs, 'session.id') ?? idAttr(r, 'session.id'),
    turnId: idAttr(attrs, 'agent.turn.id'),
    traceId: undefined,
    spanId: undefined,
    parentSpanId: undefined,
    spanName: undefined,
    serviceName: str(r, 'service.name'),
    hostName: str(attrs, 'agent.host.name') ?? str(r, 'agent.host.name'),
    hostVersion: str(attrs, 'agent.host.version') ?? str(r, 'agent.host.version'),
    adapterName: str(attrs, 'agent.adapter.name') ?? str(r, 'agent.adapter.name'),
    adapterVersion: str(attrs, 'agent.adapter.version') ?? str(r, 'agent.adapter.version'),
    conversationId: idAttr(attrs, 'gen_ai.conversation.id'),
    agentName: str(attrs, 'gen_ai.agent.name'),
    model: str(attrs, 'gen_ai.request.model'),
    // contained skill ids are `<skit id>:<skill>` (ARCHITECTURE "Identity"), so the SKIT is known even when not sent;
    // read off the id as sent (a hashed h_… id has no SKIT part left), never off an unresolved `<resolution>:<name>`
    packageId: idAttr(attrs, 'agent.skill.package.id') ?? (rawSkillId === undefined ? undefined : skitOfSkillId(rawSkillId)),
    skillId,
    skillName: str(attrs, 'agent.skill.name'),
    artifactVersion: str(attrs, 'artifact.version'),
    artifactHash: str(attrs, 'artifact.hash'),
    contentHash: str(attrs, 'agent.skill.content.hash'),
    activationId: idAttr(attrs, 'agent.skill.activation.id'),
    activationIds: idList(attrs, 'agent.skill.activation.ids'),
    phase: str(attrs, 'agent.skill.phase'),
    result: str(attrs, 'agent.skill.result'),
    triggerType: str(attrs, 'agent.skill.trigger.type'),
    reasonCode: str(attrs, 'agent.skill.reason.code'),
    errorType: str(attrs, 'error.type'),
    evidenceSource: str(attrs, 'agent.skill.evidence.source'),
    evidenceFidelity: str(attrs, 'agent.skill.evidence.fidelity'),
    schemaUrl: res.schemaUrl,
    attributes: {},
    body: undefined,
    rawBatchId: ctx.batchId,
    normalizerVersion: ctx.normalizerVersion,
  };
  row.attributes = remainingAttributes(attrs, row);
  return row;
}

const OBSERVER_FINGERPRINT = /^fp_[0-9a-f]{32}$/;

/** A log record as an observation event (EventName, or the deprecated `event.name` attribute). */
export function logEvent(ctx: BatchContext, res: ResourceContext, rec: OtlpLogRecord, occurrences: Map<string, number>): ObservationEventRow {
  const eventName = rec.eventName ?? str(rec.attributes, 'event.name') ?? 'log';
  const claimed = idAttr(rec.attributes, 'agent.skill.event.id');
  // admission stamps the fingerprint of the record as received; raw batches stored before that get it here
  const eventId = claimed ?? logFingerprint(rec, res.attributes['service.instance.id'], occurrences);
  const time = pickTime(rec.timeUnixNano, rec.observedTimeUnixNano, ctx.receivedAtMs);
  // an observer that had no event id either sends its own batch fingerprint (fp_<32 hex>, core/telemetry/normalize/pass-through.ts): still inferred dedupe
  const basis = claimed && !OBSERVER_FINGERPRINT.test(claimed) ? 'event_id' : 'batch_fingerprint';
  const row = baseRow(ctx, res, rec.attributes, 'logs', eventName, eventId, basis, time);
  // the observed time is kept when it says something the event time does not
  const observed = pickTime(rec.observedTimeUnixNano, '0', ctx.receivedAtMs);
  if (observed.source === 'source' && observed.nanos !== time.nanos) row.observedTime = isoNanos(observed.nanos);
  if (rec.traceId) row.traceId = rec.traceId;
  if (rec.spanId) row.spanId = rec.spanId;
  if (rec.body !== undefined && rec.body !== null) row.body = jsonValue(rec.body); // admission removed it unless content is opted in
  return row;
}

/**
 * The registry span kind of a span: agent action, skill activation, agent turn, or other. Only an
 * `activate_skill <name>` span is an activation span (schemas/semconv/spans.yaml): a host's tool
 * span carrying the propagated activation id is work done under the activation, never its load,
 * so it is an action linked to it (or, when it is no tool span, a plain span linked to it).
 */
export function spanKind(span: OtlpSpan): string {
  if (str(span.attributes, 'agent.action.type')) return 'span.agent.action';
  // `activate_skill` alone when the skill's name is not known (redacted), as GenAI span names do
  if (span.name === 'activate_skill' || span.name.startsWith('activate_skill ')) return 'span.agent.skill.activation';
  if (str(span.attributes, 'agent.turn.id') && (span.name === 'agent_turn' || span.name.startsWith('invoke_agent'))) return 'span.agent.turn';
  const linked = str(span.attributes, 'agent.skill.activation.id') !== undefined || span.attributes['agent.skill.activation.ids'] !== undefined;
  // `execute_tool` alone is a tool span whose tool name the hub redacted (hub/ingest/names.ts)
  if (linked && (str(span.attributes, 'gen_ai.operation.name') === 'execute_tool' || span.name === 'execute_tool' || span.name.startsWith('execute_tool '))) return 'span.agent.action';
  return 'span';
}

/** A span as an observation event; its dedupe identity is its (trace, span) id pair when no event id is set. */
export function spanEvent(ctx: BatchContext, res: ResourceContext, span: OtlpSpan): ObservationEventRow {
  const claimed = idAttr(span.attributes, 'agent.skill.event.id');
  const eventId = claimed ?? `fp_${createHash('sha256').update(`span:${span.traceId}:${span.spanId}`).digest('hex').slice(0, 32)}`;
  const time = pickTime(span.startTimeUnixNano, '0', ctx.receivedAtMs);
  const row = baseRow(ctx, res, span.attributes, 'traces', spanKind(span), eventId, claimed ? 'event_id' : 'batch_fingerprint', time);
  row.traceId = span.traceId;
  row.spanId = span.spanId;
  if (span.parentSpanId) row.parentSpanId = span.parentSpanId;
  row.spanName = span.name.slice(0, 256);
  if (span.status?.code === 2 && !row.result) row.result = 'error';
  return row;
}

/**
 * Span events named after catalog events (e.g. `agent.skill.loaded` recorded on an activation
 * span) become observation events of their own, inheriting the span's attributes.
 */
export function spanCatalogEvents(ctx: BatchContext, res: ResourceContext, span: OtlpSpan): ObservationEventRow[] {
  const out: ObservationEventRow[] = [];
  span.events.forEach((ev: OtlpSpanEvent, index) => {
    if (!(ev.name in EVENTS)) return;
    const attrs = { ...span.attributes, ...ev.attributes };
    delete attrs['agent.action.type'];
    if (ev.attributes['agent.skill.event.id'] === undefined) delete attrs['agent.skill.event.id'];
    const claimed = ev.attributes['agent.skill.event.id'] !== undefined ? idAttr(ev.attributes, 'agent.skill.event.id') : undefined;
    const eventId = claimed ?? `fp_${createHash('sha256').update(`spanevent:${span.traceId}:${span.spanId}:${index}:${ev.name}:${ev.timeUnixNano}`).digest('hex').slice(0, 32)}`;
    const row = baseRow(ctx, res, attrs, 'traces', ev.name, eventId, claimed ? 'event_id' : 'batch_fingerprint', pickTime(ev.timeUnixNano, '0', ctx.receivedAtMs));
    row.traceId = span.traceId;
    row.spanId = span.spanId;
    out.push(row);
  });
  return out;
}

export { safeId };
export { fingerprint } from './fingerprint.js';
