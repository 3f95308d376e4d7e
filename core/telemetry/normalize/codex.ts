import type { OtlpAttributes, OtlpLogRecord, OtlpMetric } from '../otlp/types.js';
import type { HostSkillScope } from '../enrich/skill-index.js';
import { approvalOf, emitAction } from './actions.js';
import { BoundedMap } from './bounded.js';
import type { NormalizerEngine } from './engine.js';
import { recordTime, str } from './native.js';
import type { Activation } from './types.js';

/**
 * Codex native OTel (configured by the [otel] block) -> agent.skill.*:
 *   log codex.skill_invocation        -> agent.skill.selected (exact; Codex's own trace context kept)
 *   metric codex.skill.injected       -> agent.skill.loaded / load_failed, joined to the selection by
 *                                        skill name and invoke type (derived: the metric carries no
 *                                        conversation id); metrics may arrive before the logs
 *   log codex.tool_result             -> agent.action.completed while skills are active in the
 *                                        conversation (shared when the trace matches, else inferred)
 * Prompts, tool arguments and output are never read into an event.
 */

const HOST = 'codex' as const;

function scopeOf(scope: string | undefined): HostSkillScope {
  if (scope === 'repo') return 'project';
  if (scope === 'user') return 'user';
  if (scope === undefined) return 'unknown';
  return 'other';
}

interface Credit {
  status: string;
  at: string;
}

/** Join state between Codex's skill logs and its skill.injected metric. */
export class CodexJoin {
  /** load results (from the metric) that arrived before their selection: `<skill>|<invoke type>` -> results */
  readonly credits = new BoundedMap<string, Credit[]>(1_000);
  /** last cumulative value per series, to turn cumulative points into deltas */
  readonly cumulative = new BoundedMap<string, number>(1_000);
}

const creditKey = (skill: string, invokeType: string | undefined) => `${skill}|${invokeType ?? ''}`;

/**
 * Settles `act` from a skill.injected credit. The metric names the skill, not the conversation:
 * the join is `derived` only when one open activation could have been injected, otherwise it is
 * a guess (the oldest open one) and says so, `inferred`.
 */
function finishFromCredit(engine: NormalizerEngine, act: Activation, credit: Credit, fidelity: 'derived' | 'inferred' = 'derived'): void {
  const at = BigInt(credit.at) < BigInt(act.selectedAt) ? act.selectedAt : credit.at;
  const ok = credit.status === 'ok';
  const errorType = /^[a-z][a-z0-9_]{0,31}$/.test(credit.status) ? credit.status : '_OTHER';
  engine.finish(act, at, ok ? { result: 'ok' } : { result: 'error', errorType, errorStage: 'injection' }, ['injected', credit.at], fidelity);
}

/** Normalizes one Codex log record. */
export function normalizeCodexRecord(engine: NormalizerEngine, join: CodexJoin, nativeResource: OtlpAttributes, rec: OtlpLogRecord): void {
  const a = rec.attributes;
  const name = str(a, 'event.name') ?? rec.eventName;
  const conversation = str(a, 'conversation.id');
  const at = recordTime(rec);
  const resource = () => engine.resourceFor(HOST, nativeResource, conversation);
  if (name === 'codex.tool_decision') {
    const call = str(a, 'call_id');
    if (call) engine.decisions.set(`${HOST}|${conversation}|${call}`, { decision: str(a, 'decision'), source: str(a, 'source') });
    return;
  }
  if (name === 'codex.tool_result') {
    const tool = str(a, 'tool_name');
    const call = str(a, 'call_id');
    if (!tool) return;
    const d = call ? engine.decisions.get(`${HOST}|${conversation}|${call}`) : undefined;
    const success = str(a, 'success') === 'true' || a.success === true;
    emitAction(engine, {
      host: HOST, sessionId: conversation, conversationId: conversation, tool, callId: call, success, approval: approvalOf(d?.decision, d?.source), at,
      resource: resource(), evidence: 'native_otel', hostTraceId: rec.traceId, hostSpanId: rec.spanId, idParts: ['tool', call, at],
      attribution: (active) => (rec.traceId && active.every((x) => x.traceId === rec.traceId) ? 'shared' : 'inferred'),
    });
    return;
  }
  if (name !== 'codex.skill_invocation') return;
  const skill = str(a, 'skill.name');
  const turn = str(a, 'turn.id');
  const invokeType = str(a, 'skill.invocation_type');
  const plugin = str(a, 'skill.plugin_id');
  const hostPlugin = plugin !== undefined && plugin !== 'unattributed';
  const act = engine.start({
    key: `${HOST}|${conversation}|${turn}|${skill}|${rec.spanId ?? rec.observedTimeUnixNano}`,
    host: HOST, sessionId: conversation, conversationId: conversation, turnId: turn, name: skill,
    hostScope: hostPlugin ? 'other' : scopeOf(str(a, 'skill.scope')), hostPlugin,
    trigger: invokeType === 'explicit' ? 'explicit' : invokeType === 'implicit' ? 'implicit' : 'unknown',
    selector: invokeType === 'explicit' ? 'user' : invokeType === 'implicit' ? 'model' : 'unknown',
    triggerSource: invokeType === 'explicit' ? 'user_mention' : invokeType === 'implicit' ? 'skill_file_access' : undefined,
    evidence: 'native_otel', at, resource: resource(), hostTraceId: rec.traceId, hostSpanId: rec.spanId, model: str(a, 'model'),
  });
  engine.emit(act, 'agent.skill.selected', { 'agent.skill.phase': 'selected' }, at, ['invocation', turn, skill, rec.spanId ?? rec.observedTimeUnixNano]);
  const waiting = skill ? join.credits.get(creditKey(skill, invokeType)) : undefined;
  const credit = waiting?.shift();
  if (credit) finishFromCredit(engine, act, credit);
}

/** Credits waiting for a selection, per skill and invoke type (Codex injects a skill a few times per turn). */
const MAX_CREDITS = 256;

/** Normalizes Codex's codex.skill.injected metric (other metrics are ignored). */
export function normalizeCodexMetric(engine: NormalizerEngine, join: CodexJoin, metric: OtlpMetric): void {
  if (metric.name !== 'codex.skill.injected' || metric.data.kind !== 'sum') return;
  const cumulative = metric.data.aggregationTemporality === 2;
  for (const p of metric.data.dataPoints) {
    const skill = str(p.attributes, 'skill');
    if (!skill) continue;
    const invokeType = str(p.attributes, 'invoke_type');
    const status = str(p.attributes, 'status') ?? 'unknown';
    let count = Math.max(0, Math.round(Number(p.asInt ?? p.asDouble ?? 0)));
    if (cumulative) {
      const series = `${creditKey(skill, invokeType)}|${status}`;
      const previous = join.cumulative.get(series) ?? 0;
      join.cumulative.set(series, count);
      count = Math.max(0, count - previous);
    }
    // a credit settles one open selection or waits for one; more than MAX_CREDITS waiting for one
    // skill cannot all be settled (a counter of 30 million is a reset or a hostile point, not 30
    // million injections), and the rest are not held in memory
    const list = join.credits.get(creditKey(skill, invokeType)) ?? [];
    for (let i = 0; i < count; i++) {
      // a delta point's start is when the counter first moved in this interval: the closest
      // estimate of the injection time the metric offers
      const credit = { status, at: !cumulative && p.startTimeUnixNano ? p.startTimeUnixNano : p.timeUnixNano };
      const open = openFor(engine, skill, invokeType);
      if (open.length > 0) finishFromCredit(engine, open[0], credit, open.length === 1 ? 'derived' : 'inferred');
      else if (list.length < MAX_CREDITS) list.push(credit);
      else {
        engine.rejected += count - i;
        break;
      }
    }
    if (list.length) join.credits.set(creditKey(skill, invokeType), list);
  }
}

/** The open activations a credit for `skill` could settle, oldest first (at most two: only "one or more" matters). */
function openFor(engine: NormalizerEngine, skill: string, invokeType: string | undefined): Activation[] {
  const trigger = invokeType === 'explicit' ? 'explicit' : invokeType === 'implicit' ? 'implicit' : undefined;
  const out: Activation[] = [];
  for (const act of engine.activations.values()) {
    if (act.host === HOST && act.name === skill && !act.finishedAt && (trigger === undefined || act.trigger === trigger)) out.push(act);
    if (out.length === 2) break;
  }
  return out;
}

