import type { ObserverPluginEvent } from '../../../schemas/generated/observer-plugin-event.js';
import type { InventoryEvent } from '../../library/types.js';
import type { OtlpAttributes, OtlpLogsRequest, OtlpMetricsRequest, OtlpTracesRequest } from '../otlp/types.js';
import { annotateActionSpan, isToolSpan } from '../spans.js';
import { normalizeClaudeRecord } from './claude-code.js';
import { CodexJoin, normalizeCodexMetric, normalizeCodexRecord, releaseCodexClaims } from './codex.js';
import { NormalizerEngine } from './engine.js';
import { normalizeInventory } from './inventory.js';
import { normalizePluginEvent } from './opencode.js';
import { passThroughRecord } from './pass-through.js';
import type { HostId, NormalizeContext, NormalizedOutput } from './types.js';

export type { HostId, NormalizeContext, NormalizedOutput, SessionInfo, MetricSample, ResourceSpan } from './types.js';
export { HOST_NAME } from './types.js';

/**
 * The normalizer at the observer's first boundary: native host telemetry in, metadata-only
 * agent.skill.* events, activation spans and client-metric samples out. Every method is
 * synchronous and deterministic given its context (clock, sequence, library, sessions); state
 * carried between calls is only what joins records of one activation.
 */
export interface Normalizer {
  logs(req: OtlpLogsRequest): NormalizedOutput;
  metrics(req: OtlpMetricsRequest): NormalizedOutput;
  /** host tool spans of sessions with active skills, annotated; every other span is dropped */
  traces(req: OtlpTracesRequest): NormalizedOutput;
  plugin(ev: ObserverPluginEvent): NormalizedOutput;
  inventory(rec: InventoryEvent): NormalizedOutput;
  /** settles activations that waited too long for missing evidence, and emits Codex load joins whose hold is over */
  /** `all`: also what is not idle yet (see NormalizerEngine.expire) */
  expire(options?: { all?: boolean }): NormalizedOutput;
}

/** Which host a resource/scope belongs to (undefined: not a host Forge normalizes). */
export function hostOf(resource: OtlpAttributes, scopeName: string): HostId | undefined {
  const service = typeof resource['service.name'] === 'string' ? resource['service.name'] : '';
  if (service === 'claude-code' || scopeName.startsWith('com.anthropic.claude_code')) return 'claude-code';
  if (service.startsWith('codex') || scopeName.startsWith('codex')) return 'codex';
  if (service === 'opencode') return 'opencode';
  return undefined;
}

const sessionOfSpan = (a: OtlpAttributes): string | undefined => {
  for (const k of ['session.id', 'gen_ai.conversation.id', 'conversation.id']) if (typeof a[k] === 'string') return a[k] as string;
  return undefined;
};

/** Creates a normalizer bound to `ctx`. */
export function createNormalizer(ctx: NormalizeContext): Normalizer {
  const engine = new NormalizerEngine(ctx);
  const codex = new CodexJoin();
  return {
    logs(req) {
      for (const r of req.resources) {
        for (const s of r.scopes) {
          const host = hostOf(r.resource.attributes, s.scope.name);
          for (const rec of s.items) {
            if (host === 'claude-code') normalizeClaudeRecord(engine, r.resource.attributes, rec);
            else if (host === 'codex') normalizeCodexRecord(engine, codex, r.resource.attributes, rec);
            else passThroughRecord(engine, r.resource.attributes, s.scope, rec);
          }
        }
      }
      return engine.take();
    },
    metrics(req) {
      for (const r of req.resources) {
        for (const s of r.scopes) {
          if (hostOf(r.resource.attributes, s.scope.name) !== 'codex') continue;
          for (const m of s.items) normalizeCodexMetric(engine, codex, m);
        }
      }
      return engine.take();
    },
    traces(req) {
      const out = engine.take();
      for (const r of req.resources) {
        for (const s of r.scopes) {
          const host = hostOf(r.resource.attributes, s.scope.name);
          if (!host) continue;
          for (const span of s.items) {
            if (!isToolSpan(span)) continue;
            const session = sessionOfSpan(span.attributes);
            const active = [...engine.activations.values()].filter((a) => a.host === host && a.sessionId === session && a.result === 'ok');
            if (active.length === 0) continue;
            const fidelity = active.every((a) => a.traceId === span.traceId) ? 'shared' : 'inferred';
            out.spans.push({ resource: engine.resourceFor(host, r.resource.attributes, session), span: annotateActionSpan(span, active.map((a) => a.id), fidelity, ctx.content) });
          }
        }
      }
      return out;
    },
    plugin(ev) {
      normalizePluginEvent(engine, ev);
      return engine.take();
    },
    inventory(rec) {
      normalizeInventory(engine, rec);
      return engine.take();
    },
    expire(options) {
      releaseCodexClaims(engine, codex);
      engine.expire(options);
      return engine.take();
    },
  };
}
