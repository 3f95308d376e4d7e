import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { OBSERVER_SCOPE } from '../../core/telemetry/event.js';
import { SPANS } from '../../schemas/generated/semconv.js';
import { REGISTERED_EVENT_NAMES } from './registry-values.js';

/**
 * The metadata-only forms of the free-form names OTLP carries outside attributes (span names,
 * span event names, instrumentation scope, severity text). A client can put anything in them, so
 * an account that did not opt into content keeps only what the spec and the registry define;
 * anything else is redacted (and counted by admission).
 */

/** What a name outside the registered vocabulary becomes (OTel's convention for "a value outside the known set"). */
export const REDACTED_NAME = '_OTHER';

/**
 * Span name operations: the first word of the registry's span name templates (activate_skill,
 * execute_tool, agent_turn) and the GenAI semantic conventions' operation names, whose span names
 * are `{gen_ai.operation.name} {target}`.
 */
const SPAN_OPERATIONS: ReadonlySet<string> = new Set([
  ...Object.values(SPANS).map((s) => s.nameTemplate.split(' ')[0]),
  'chat', 'create_agent', 'embeddings', 'execute_tool', 'generate_content', 'invoke_agent', 'text_completion',
]);

/** Attributes a span name's target may repeat (the templates' `{attribute}` and GenAI's targets): already admitted metadata of the span. */
const NAME_TARGETS = ['agent.skill.name', 'gen_ai.tool.name', 'gen_ai.agent.name', 'gen_ai.request.model'];

/** A name target of the identifier kind span names carry (a tool, model, agent or skill name): no spaces, at most 128 characters. */
const TARGET = /^[A-Za-z0-9@_][A-Za-z0-9@._/:+-]{0,127}$/;

/**
 * How admission treats a span name, and its metadata-only form. `<operation>` alone, or
 * `<operation> <target>` where the target equals one of the span's own admitted name-target
 * attributes, is `registered` (the name reveals nothing the attributes do not). `<operation>
 * <identifier>` is `shaped`: a tool, model or skill name by its form, kept through the
 * cardinality guard. Anything else is `free`: its metadata-only form keeps only the operation
 * (`activate_skill` alone is how a redacted skill name is spelled), or is REDACTED_NAME when the
 * name starts with no known operation.
 */
export function spanNameClass(name: string, admitted: OtlpAttributes): { kind: 'registered' | 'shaped' | 'free'; metadataForm: string } {
  const space = name.indexOf(' ');
  const operation = space < 0 ? name : name.slice(0, space);
  if (!SPAN_OPERATIONS.has(operation)) return { kind: 'free', metadataForm: REDACTED_NAME };
  if (space < 0) return { kind: 'registered', metadataForm: name };
  const target = name.slice(space + 1);
  for (const key of NAME_TARGETS) if (admitted[key] === target) return { kind: 'registered', metadataForm: name };
  return { kind: TARGET.test(target) ? 'shaped' : 'free', metadataForm: operation };
}

/** Span event names the spec defines: catalog events recorded on spans, and OTel's `exception`. */
export const isRegisteredSpanEventName = (name: string): boolean => REGISTERED_EVENT_NAMES.has(name) || name === 'exception';

/** Instrumentation scopes of Forge's own observer (exempt from the cardinality guard). */
export const isForgeScopeName = (name: string): boolean => name === '' || name === OBSERVER_SCOPE.name;

/**
 * The shape OTel gives a scope name: the instrumentation library's identifier (a package, module
 * or logger name: `sf-claude-adapter`, `@opentelemetry/instrumentation-http`,
 * `io.opentelemetry.okhttp-3.0`). Free text (spaces, quotes, anything past 128 characters) is not
 * a scope name. The registry defines no scope names, so this shape is what metadata-only keeps,
 * bounded by the cardinality limit.
 */
const SCOPE_NAME = /^[A-Za-z0-9@_][A-Za-z0-9@._/:+-]{0,127}$/;
export const isScopeNameShape = (name: string): boolean => SCOPE_NAME.test(name);

/** A version string (semver-like), which cannot carry more than a version. */
const VERSION = /^v?\d{1,9}(\.\d{1,9}){0,3}([-+][0-9A-Za-z.-]{1,64})?$/;
export const isVersionString = (v: string): boolean => VERSION.test(v);

/** OTel severity text: the short names of the log data model's severity ranges (TRACE..FATAL, with their 2-4 steps) and the usual aliases. */
const SEVERITY = /^(trace|debug|info|notice|warn|warning|error|critical|fatal)[234]?$/i;
export const isSeverityText = (v: string): boolean => SEVERITY.test(v);
