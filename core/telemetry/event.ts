import {
  EVENTS, SEMCONV_SCHEMA_URL, SEMCONV_VERSION, type AttributeSet, type EventDefinition, type EventName,
} from '../../schemas/generated/semconv.js';
import type { ObservationEnvelope } from '../../schemas/generated/observation-envelope.js';
import { SfError } from '../errors/index.js';
import { FORGE_VERSION } from '../version.js';
import { attributeProblem, RESOURCE_ATTRIBUTES } from './attributes.js';
import { isGitAiId, isSpanId, isTraceId } from './ids.js';
import { nanosToIso } from './time.js';

/**
 * Event builders driven by the generated event catalog: every attribute must be in the registry
 * and allowed for the event, every required attribute present, every value well typed. An event
 * that breaks the convention throws SF_E_TELEMETRY_EVENT; nothing half-valid is ever exported.
 */

/** Resource attributes of an observation (the emitting host process and adapter). */
export type ResourceAttributes = { 'service.name': string } & Record<string, string | number | boolean>;

export interface EventInput {
  name: EventName;
  /** event attributes; undefined values are omitted. agent.skill.schema.version is added. */
  attributes: AttributeSet;
  resource: ResourceAttributes;
  /** source time (nanoseconds string); omitted when the source gave none */
  timestamp?: string;
  /** when the observer first saw the event (nanoseconds string) */
  observedTimestamp: string;
  traceId?: string;
  spanId?: string;
  traceFlags?: number;
  scope?: { name: string; version?: string };
}

/** The instrumentation scope of everything the observer emits. */
export const OBSERVER_SCOPE = { name: 'sf-observer', version: FORGE_VERSION } as const;

const catalog = EVENTS as unknown as Readonly<Record<string, EventDefinition>>;

function allowedKeys(def: EventDefinition): Set<string> {
  return new Set<string>([...def.required, ...def.conditionallyRequired.map((c) => c.id), ...def.recommended, ...def.optIn]);
}
const allowedCache = new Map<string, Set<string>>();

/** Every attribute key the catalog allows on event `name` (required, conditional, recommended, opt-in). */
export function eventAttributeKeys(name: EventName): ReadonlySet<string> {
  let keys = allowedCache.get(name);
  if (!keys) allowedCache.set(name, (keys = allowedKeys(catalog[name])));
  return keys;
}

function fail(name: string, problems: string[]): never {
  throw new SfError('SF_E_TELEMETRY_EVENT', `event ${name} breaks the semantic convention: ${problems.join('; ')}`, {
    hint: 'fix the normalizer, or add the attribute to schemas/semconv and run `npm run gen`',
    data: { event: name, problems },
  });
}

/**
 * The attribute keys an event may carry when content collection is off: the catalog's keys without
 * its opt-in ones (local paths, commit ids, branch and repository names).
 */
export function metadataAttributeKeys(name: EventName): ReadonlySet<string> {
  let keys = metadataCache.get(name);
  if (!keys) {
    const optIn = new Set<string>(catalog[name].optIn);
    metadataCache.set(name, (keys = new Set([...eventAttributeKeys(name)].filter((k) => !optIn.has(k)))));
  }
  return keys;
}
const metadataCache = new Map<string, Set<string>>();

/** Builds one normalized observation (a LogRecord flattened to the observation envelope). */
export function buildEvent(input: EventInput): ObservationEnvelope {
  const def = catalog[input.name];
  if (!def) fail(input.name, ['not in the event catalog']);
  const allowed = eventAttributeKeys(input.name);
  const attributes: Record<string, unknown> = { 'agent.skill.schema.version': SEMCONV_VERSION };
  const problems: string[] = [];
  for (const [key, value] of Object.entries(input.attributes)) {
    if (value === undefined) continue;
    if (!allowed.has(key)) problems.push(`${key} is not an attribute of ${def.name}`);
    else {
      const p = attributeProblem(key, value);
      if (p) problems.push(p);
    }
    attributes[key] = value;
  }
  for (const key of def.required) if (attributes[key] === undefined) problems.push(`required ${key} is missing`);
  for (const [key, value] of Object.entries(input.resource)) {
    if (!RESOURCE_ATTRIBUTES.has(key)) problems.push(`${key} is not a resource attribute`);
    else {
      const p = attributeProblem(key, value);
      if (p) problems.push(p);
    }
  }
  if (input.traceId !== undefined && (!isTraceId(input.traceId) || isGitAiId(input.traceId))) problems.push(`trace id ${JSON.stringify(input.traceId)} is not a W3C trace id`);
  if (input.spanId !== undefined && !isSpanId(input.spanId)) problems.push(`span id ${JSON.stringify(input.spanId)} is not a W3C span id`);
  if (input.spanId !== undefined && input.traceId === undefined) problems.push('a span id needs a trace id');
  if (problems.length) fail(def.name, problems);

  const env: ObservationEnvelope = {
    event_name: def.name,
    observed_timestamp: nanosToIso(input.observedTimestamp),
    severity_number: 9,
    severity_text: 'INFO',
    schema_url: SEMCONV_SCHEMA_URL,
    scope: input.scope ?? { ...OBSERVER_SCOPE },
    resource: { ...input.resource },
    attributes: attributes as ObservationEnvelope['attributes'],
  };
  if (input.timestamp && input.timestamp !== '0') env.timestamp = nanosToIso(input.timestamp);
  if (input.traceId) {
    env.trace_id = input.traceId;
    if (input.spanId) env.span_id = input.spanId;
    env.trace_flags = input.traceFlags ?? 1;
  }
  return env;
}
