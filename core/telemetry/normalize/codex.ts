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
 *                                        skill name, invoke type and time (the metric carries no
 *                                        conversation id: `derived` only when one selection could
 *                                        own the injection, else `inferred`); metrics may arrive
 *                                        before the logs
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

/** One injection the skill.injected metric counted; it happened in (from, to]. */
interface Credit {
  status: string;
  /** estimate of the injection time (nanoseconds): the load result's time */
  at: string;
  from: bigint;
  to: bigint;
}

/** A `derived` join not emitted yet: a selection arriving within the hold could still own the credit. */
interface Held {
  act: Activation;
  credit: Credit;
  /** observer time of the claim (nanoseconds) */
  since: string;
}

/** Join state between Codex's skill logs and its skill.injected metric. */
export class CodexJoin {
  /** load results (from the metric) that no selection has claimed yet: `<skill>|<invoke type>` -> results */
  readonly credits = new BoundedMap<string, Credit[]>(1_000);
  /** last cumulative value and its time per series, to turn cumulative points into deltas */
  readonly cumulative = new BoundedMap<string, { count: number; at: bigint }>(1_000);
  /** unambiguous joins waiting out the hold, by activation key */
  readonly held = new BoundedMap<string, Held>(1_000);
}

const creditKey = (skill: string, invokeType: string | undefined) => `${skill}|${invokeType ?? ''}`;

/**
 * How long before the counted interval a selection may lie and still own an injection (Codex
 * injects a skill in the turn that selected it), and the clock rounding allowed after it (log
 * times can be whole milliseconds).
 */
const SELECTION_LEAD_NS = 120_000_000_000n;
const ROUNDING_NS = 1_000_000_000n;
/**
 * Seconds an unambiguous (`derived`) join waits before it is emitted: the metric names no
 * conversation, so the selection log of another conversation that could own the same injection
 * may still be on its way (each Codex process exports its own logs, in batches about a second
 * apart, and that selection happened before the metric point was taken). Waiting makes the label
 * the same whichever arrives first; an ambiguous join is `inferred` at once. The observer's
 * housekeeping tick (5 s) emits the held joins.
 */
export const CODEX_CLAIM_HOLD_SECONDS = 10;

const triggerOf = (invokeType: string | undefined) => (invokeType === 'explicit' ? 'explicit' : invokeType === 'implicit' ? 'implicit' : undefined);

/** True when `act` is a selection of the skill whose injection `credit` counted: same skill and invoke type, selected in time. */
function couldOwn(act: Activation, skill: string, invokeType: string | undefined, credit: Credit): boolean {
  const trigger = triggerOf(invokeType);
  if (act.host !== HOST || act.name !== skill || (trigger !== undefined && act.trigger !== trigger)) return false;
  const at = BigInt(act.selectedAt);
  return at >= credit.from - SELECTION_LEAD_NS && at <= credit.to + ROUNDING_NS;
}

/** Oldest first, by selection time then key: the same order whatever order the records came in. */
const bySelection = (a: Activation, b: Activation) => {
  const d = BigInt(a.selectedAt) - BigInt(b.selectedAt);
  return d < 0n ? -1 : d > 0n ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
};

/**
 * Settles `act` from a skill.injected credit. The metric names the skill, not the conversation:
 * the join is `derived` only when one selection could own the injection, otherwise it is a guess
 * (the oldest open one) and says so, `inferred`.
 */
function finishFromCredit(engine: NormalizerEngine, act: Activation, credit: Credit, fidelity: 'derived' | 'inferred'): void {
  const at = BigInt(credit.at) < BigInt(act.selectedAt) ? act.selectedAt : credit.at;
  const ok = credit.status === 'ok';
  const errorType = /^[a-z][a-z0-9_]{0,31}$/.test(credit.status) ? credit.status : '_OTHER';
  engine.finish(act, at, ok ? { result: 'ok' } : { result: 'error', errorType, errorStage: 'injection' }, ['injected', credit.at], fidelity);
}

/**
 * Gives `credit` to one of the selections that could own it, or returns false when none is open.
 * Several candidates (open, held or already settled by another injection): the oldest open one
 * gets it, `inferred`, at once. One: it is held as `derived` (see CODEX_CLAIM_HOLD_SECONDS).
 */
function claim(engine: NormalizerEngine, join: CodexJoin, skill: string, invokeType: string | undefined, credit: Credit): boolean {
  const candidates = [...engine.activations.values()].filter((a) => couldOwn(a, skill, invokeType, credit)).sort(bySelection);
  const open = candidates.filter((a) => !a.finishedAt && !join.held.has(a.key));
  if (open.length === 0) return false;
  if (candidates.length === 1) {
    // the activation counts as loaded now (its tool calls are linked to it); only the report waits
    open[0].result = credit.status === 'ok' ? 'ok' : 'error';
    join.held.set(open[0].key, { act: open[0], credit, since: engine.ctx.now() });
  } else finishFromCredit(engine, open[0], credit, 'inferred');
  return true;
}

/**
 * A new selection makes every held join whose injection it could own ambiguous: the credit goes
 * back to the oldest of those selections, `inferred`, so the outcome does not depend on which
 * record arrived first.
 */
function releaseAmbiguous(engine: NormalizerEngine, join: CodexJoin, act: Activation, skill: string, invokeType: string | undefined): void {
  for (const [key, h] of [...join.held]) {
    if (h.act === act || !couldOwn(act, skill, invokeType, h.credit) || !couldOwn(h.act, skill, invokeType, h.credit)) continue;
    join.held.delete(key);
    h.act.result = undefined;
    const owner = [h.act, act].sort(bySelection)[0];
    finishFromCredit(engine, owner, h.credit, 'inferred');
  }
}

/** Emits the held joins whose hold is over, `derived` (called by the normalizer's expire()). */
export function releaseCodexClaims(engine: NormalizerEngine, join: CodexJoin): void {
  const now = BigInt(engine.ctx.now());
  const hold = BigInt(CODEX_CLAIM_HOLD_SECONDS) * 1_000_000_000n;
  for (const [key, h] of [...join.held]) {
    if (now - BigInt(h.since) < hold) continue;
    join.held.delete(key);
    h.act.result = undefined;
    finishFromCredit(engine, h.act, h.credit, 'derived');
  }
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
  if (!skill || act.finishedAt) return;
  releaseAmbiguous(engine, join, act, skill, invokeType);
  // a waiting credit only from an injection this selection could have caused (never a stale one)
  const waiting = join.credits.get(creditKey(skill, invokeType)) ?? [];
  const i = waiting.findIndex((c) => couldOwn(act, skill, invokeType, c));
  if (i >= 0 && claim(engine, join, skill, invokeType, waiting[i])) waiting.splice(i, 1);
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
    const to = BigInt(p.timeUnixNano);
    // the injections a point counts happened in (start, time]; for a cumulative series, since its previous point
    let from = BigInt(p.startTimeUnixNano || p.timeUnixNano);
    if (cumulative) {
      const series = `${creditKey(skill, invokeType)}|${status}`;
      const previous = join.cumulative.get(series);
      join.cumulative.set(series, { count, at: to });
      if (previous && previous.count <= count && previous.at > from) from = previous.at;
      count = Math.max(0, count - (previous?.count ?? 0));
    }
    // a credit settles one selection or waits for one; more than MAX_CREDITS waiting for one
    // skill cannot all be settled (a counter of 30 million is a reset or a hostile point, not 30
    // million injections), and the rest are not held in memory
    const list = join.credits.get(creditKey(skill, invokeType)) ?? [];
    for (let i = 0; i < count; i++) {
      // a delta point's start is when the counter first moved in this interval: the closest
      // estimate of the injection time the metric offers
      const credit: Credit = { status, at: !cumulative && p.startTimeUnixNano ? p.startTimeUnixNano : p.timeUnixNano, from, to };
      if (claim(engine, join, skill, invokeType, credit)) continue;
      if (list.length < MAX_CREDITS) list.push(credit);
      else {
        engine.rejected += count - i;
        break;
      }
    }
    if (list.length) join.credits.set(creditKey(skill, invokeType), list);
  }
}
