import { isErrorType } from './attributes.js';
import { SPANS, type SpanDefinition } from '../../schemas/generated/semconv.js';
import { SfError } from '../errors/index.js';
import { attributeProblem } from './attributes.js';
import { isGitAiId, isSpanId, isTraceId } from './ids.js';
import { actionTypeOf, metadataToolName } from './normalize/actions.js';
import type { OtlpAttributes, OtlpSpan } from './otlp/types.js';

/**
 * Spans Forge emits or enriches: the activation span `activate_skill <name>` (selection until
 * the load result), the turn span `agent_turn` (the parent of a turn's activation spans when the
 * host gives no trace to reuse), and host tool/action spans, which keep their native name, kind
 * and conventions and gain agent.skill.activation.ids. Driven by the generated SPANS catalog.
 */

const ACTIVATION = SPANS['span.agent.skill.activation'] as SpanDefinition;
const TURN = SPANS['span.agent.turn'] as SpanDefinition;
const ACTION = SPANS['span.agent.action'] as SpanDefinition;

function allowed(def: SpanDefinition): Set<string> {
  return new Set<string>([...def.required, ...def.conditionallyRequired.map((c) => c.id), ...def.recommended, ...def.optIn]);
}
const ACTIVATION_KEYS = allowed(ACTIVATION);
const TURN_KEYS = allowed(TURN);

/** The attributes `def` defines, checked; throws SF_E_TELEMETRY_EVENT naming every problem. */
function spanAttributes(def: SpanDefinition, keys: ReadonlySet<string>, what: string, input: { traceId: string; spanId: string; attributes: Record<string, unknown> }): OtlpAttributes {
  const problems: string[] = [];
  const attrs: OtlpAttributes = {};
  for (const [k, v] of Object.entries(input.attributes)) {
    if (v === undefined || !keys.has(k)) continue;
    const p = attributeProblem(k, v);
    if (p) problems.push(p);
    attrs[k] = v as OtlpAttributes[string];
  }
  for (const k of def.required) if (attrs[k] === undefined) problems.push(`required ${k} is missing`);
  if (!isTraceId(input.traceId) || isGitAiId(input.traceId)) problems.push('invalid trace id');
  if (!isSpanId(input.spanId)) problems.push('invalid span id');
  if (problems.length) {
    throw new SfError('SF_E_TELEMETRY_EVENT', `${what} span breaks the semantic convention: ${problems.join('; ')}`, {
      hint: `fix the normalizer, or add the attribute to ${def.id} in schemas/semconv/spans.yaml and run \`npm run gen\``,
      data: { problems },
    });
  }
  return attrs;
}

export interface ActivationSpanInput {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** nanoseconds strings */
  start: string;
  end: string;
  failed: boolean;
  /** span attributes; keys the activation span does not define are left out */
  attributes: Record<string, unknown>;
}

/** Builds the activation span; throws SF_E_TELEMETRY_EVENT when it breaks the span definition. */
export function activationSpan(input: ActivationSpanInput): OtlpSpan {
  const attrs = spanAttributes(ACTIVATION, ACTIVATION_KEYS, 'activation', input);
  // `activate_skill <name>`; `activate_skill` alone when the name stayed redacted (GenAI spans drop an unknown name)
  const skill = attrs['agent.skill.name'];
  const name = typeof skill === 'string' && skill !== ''
    ? ACTIVATION.nameTemplate.replace('{agent.skill.name}', skill)
    : ACTIVATION.nameTemplate.replace(/\s*\{agent\.skill\.name\}/, '');
  const span = internalSpan(input, name, attrs, input.failed ? { code: 2 } : { code: 0 });
  if (input.parentSpanId && isSpanId(input.parentSpanId)) span.parentSpanId = input.parentSpanId;
  return span;
}

export interface TurnSpanInput {
  traceId: string;
  spanId: string;
  /** nanoseconds strings: the first selection and the last load result of the turn's activations */
  start: string;
  end: string;
  /** span attributes; keys the turn span does not define are left out */
  attributes: Record<string, unknown>;
}

/**
 * Builds the internal turn span `agent_turn` (a root: the host gave no trace); throws
 * SF_E_TELEMETRY_EVENT when it breaks the span definition. It never claims a provider operation:
 * no gen_ai.operation.name, status unset.
 */
export function turnSpan(input: TurnSpanInput): OtlpSpan {
  return internalSpan(input, TURN.nameTemplate, spanAttributes(TURN, TURN_KEYS, 'turn', input), { code: 0 });
}

/** A span Forge makes itself (kind internal), ending no earlier than it starts. */
function internalSpan(input: { traceId: string; spanId: string; start: string; end: string }, name: string, attributes: OtlpAttributes, status: { code: number }): OtlpSpan {
  return {
    traceId: input.traceId,
    spanId: input.spanId,
    name,
    kind: 1,
    startTimeUnixNano: input.start,
    endTimeUnixNano: BigInt(input.end) < BigInt(input.start) ? input.start : input.end,
    attributes,
    events: [],
    links: [],
    status,
  };
}

/**
 * Host span attributes kept on an exported tool span by default: exactly span.agent.action's
 * (metadata only, no content; its opt-in attributes only with the content opt-in), so what the
 * observer sends and what the registry, and the hub's allowlist derived from it, accept are one set.
 */
export const METADATA_SPAN_KEYS: ReadonlySet<string> = new Set<string>([...ACTION.required, ...ACTION.conditionallyRequired.map((c) => c.id), ...ACTION.recommended]);

/** True for a host span that represents a tool call (GenAI execute_tool). */
export function isToolSpan(span: OtlpSpan): boolean {
  return span.attributes['gen_ai.operation.name'] === 'execute_tool' || span.name.startsWith('execute_tool');
}

/**
 * A host tool span as Forge exports it: native name, kind, ids, timing and status kept; attributes
 * restricted to metadata (unless `keepAllAttributes`, the content opt-in); plus the set of active
 * activation ids and the attribution fidelity. Span events (which may carry content) are dropped.
 */
export function annotateActionSpan(span: OtlpSpan, activationIds: readonly string[], fidelity: 'exact' | 'shared' | 'inferred' | 'unknown', keepAllAttributes = false): OtlpSpan {
  const attributes: OtlpAttributes = {};
  for (const [k, v] of Object.entries(span.attributes)) if (keepAllAttributes || (METADATA_SPAN_KEYS.has(k) && isScalar(v))) attributes[k] = v;
  // span.agent.action requires agent.action.type: the host's own value when it is a registry value,
  // otherwise mapped from the tool name exactly as agent.action.completed maps it ('other' when unknown)
  const hostType = span.attributes['agent.action.type'];
  const mapped = actionTypeOf(toolOf(span) ?? '');
  attributes['agent.action.type'] = isActionType(hostType) ? hostType : isActionType(mapped) ? mapped : 'other';
  attributes['agent.skill.activation.ids'] = [...activationIds];
  attributes['agent.skill.attribution.fidelity'] = fidelity;
  const { droppedAttributesCount: _drop, ...rest } = span;
  if (keepAllAttributes) return { ...rest, attributes, events: span.events, links: span.links.map((l) => ({ ...l, attributes: {} })) };
  // metadata only: the name as GenAI defines it (a host's name can hold the command line), no status
  // message or trace state (free text), error.type only as a type
  if ('error.type' in attributes && !isErrorType(attributes['error.type'])) attributes['error.type'] = '_OTHER';
  const { status, traceState: _state, ...kept } = rest;
  const tool = metadataToolName(span.attributes['gen_ai.tool.name']);
  if (tool === undefined) delete attributes['gen_ai.tool.name'];
  return {
    ...kept,
    name: tool !== undefined ? `execute_tool ${tool}` : 'execute_tool',
    ...(status ? { status: { code: status.code } } : {}),
    attributes,
    events: [],
    links: span.links.map(({ traceState: _s, ...l }) => ({ ...l, attributes: {} })),
  };
}

/** A registry agent.action.type value (a tool name like `constructor` must not map to anything else). */
const isActionType = (v: unknown): v is string => typeof v === 'string' && !attributeProblem('agent.action.type', v);

/** The tool a span ran: gen_ai.tool.name, else the `execute_tool <tool>` name suffix. */
function toolOf(span: OtlpSpan): string | undefined {
  const tool = span.attributes['gen_ai.tool.name'];
  if (typeof tool === 'string' && tool !== '') return tool;
  const m = /^execute_tool ([A-Za-z0-9_.:-]{1,64})$/.exec(span.name);
  return m?.[1];
}

/** A single value (not a list or map, which could carry anything under an allowed key). */
const isScalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint';
