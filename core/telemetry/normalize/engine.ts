import type { AttributeSet, EventName } from '../../../schemas/generated/semconv.js';
import type { OtlpAttributes } from '../otlp/types.js';
import { identityOf } from '../enrich/identity.js';
import { buildEvent, eventAttributeKeys, type ResourceAttributes } from '../event.js';
import { activationIdFor, deriveSpanId, deriveTraceId, eventIdFor, hostTraceId } from '../ids.js';
import { activationSpan, turnSpan } from '../spans.js';
import { secondsBetween } from '../time.js';
import { BoundedMap, RecentIds } from './bounded.js';
import { HOST_NAME, emptyOutput, type Activation, type HostId, type NormalizeContext, type NormalizedOutput } from './types.js';

/**
 * The normalizer's engine: follows activations from selection to load result, settles their
 * skill identity against the library, and emits catalog-checked events, activation spans (under
 * an `agent_turn` span when the host gives no trace to reuse) and metric samples. Host modules (claude-code.ts, codex.ts, opencode.ts) translate native records
 * into calls on it. Emission waits while an activation's identity is unsettled (a redacted name,
 * or a plugin activation whose load result will name the skill's directory).
 */

export interface StartSpec {
  key: string;
  host: HostId;
  sessionId?: string;
  turnId?: string;
  conversationId?: string;
  name?: string;
  hostScope: Activation['hostScope'];
  trigger: Activation['trigger'];
  selector: Activation['selector'];
  triggerSource?: string;
  evidence: Activation['evidence'];
  at: string;
  resource: ResourceAttributes;
  hostTraceId?: string;
  hostSpanId?: string;
  model?: string;
  settleOnResult?: boolean;
  /** the host says it is one of its own plugin skills (never a Forge install) */
  hostPlugin?: boolean;
}

const KEEP_FINISHED_SECONDS = 1800;

/**
 * A turn Forge makes the span of: the host gave no trace (no invoke_agent span to reuse), so the
 * turn's activations share a trace derived from (host, session, turn) and hang under this span.
 * It spans the activations seen, first selection to last load result, and is emitted once the
 * turn has been idle for the settle window (a turn has no end event Forge sees).
 */
interface Turn {
  traceId: string;
  spanId: string;
  turnId: string;
  sessionId?: string;
  conversationId?: string;
  resource: ResourceAttributes;
  start: string;
  end: string;
  /** when an activation last started in it (later touches are read from its activations) */
  lastTouched: string;
  emitted: boolean;
}

const later = (a: string, b: string) => (BigInt(a) < BigInt(b) ? b : a);
const earlier = (a: string, b: string) => (BigInt(a) < BigInt(b) ? a : b);
const MAX_ACTIVATIONS = 10_000;

/**
 * A skill name as hosts pass it (`review`, `plugin:skill`), or undefined: names come from tool
 * arguments, which can hold anything a model wrote (a path, a sentence, a password), and a name
 * becomes agent.skill.name and part of agent.skill.id on every export.
 */
export function skillName(v: string | undefined): string | undefined {
  return v !== undefined && /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(v) ? v : undefined;
}

/** One installation of a skill as one agent sees it: what an intervention may be linked by. */
export interface InstallationOfSkill {
  skillId: string;
  /** adapter id of the host ('claude-code' ...) */
  agent: string;
  scope: 'user' | 'project';
  projectRoot?: string;
}

/**
 * The lastBySkill key of an installation, or undefined when it cannot be told apart from others
 * (a project installation without its root, as records of older installers have it).
 */
export function installationKey(i: InstallationOfSkill): string | undefined {
  if (i.scope === 'project' && !i.projectRoot) return undefined;
  return [i.skillId, i.agent, i.scope, i.scope === 'project' ? i.projectRoot : ''].join('\u0000');
}

/** An emission that broke the semantic convention (event or span builder). */
const isConventionError = (e: unknown): boolean => (e as { code?: string } | null)?.code === 'SF_E_TELEMETRY_EVENT';

export class NormalizerEngine {
  readonly activations = new Map<string, Activation>();
  /** turns whose span Forge makes (derived traces), by trace id */
  readonly turns = new BoundedMap<string, Turn>(MAX_ACTIVATIONS);
  /**
   * installationKey (skill id, host, scope, project) -> the latest activation resolved to that
   * installation: links a disable or uninstall there to its last use, never to another one's
   */
  readonly lastBySkill = new Map<string, { activationId: string; at: string }>();
  /** tool permission decisions (host|session|call id -> decision), joined to tool results */
  readonly decisions = new BoundedMap<string, { decision?: string; source?: string }>(10_000);
  private readonly emitted = new RecentIds(50_000);
  private out: NormalizedOutput = emptyOutput();
  /** events and spans dropped because they broke the semantic convention */
  rejected = 0;
  /**
   * Occurrences of each content fingerprint in the current batch (pass-through events without an
   * event id): two identical records of one batch stay two. Cleared by take(), which ends every batch.
   */
  readonly batchOccurrences = new Map<string, number>();

  constructor(readonly ctx: NormalizeContext) {}

  /** Returns and clears what was produced since the last call. */
  take(): NormalizedOutput {
    const o = this.out;
    this.out = emptyOutput();
    this.batchOccurrences.clear();
    return o;
  }

  /**
   * Runs emissions one by one: an emission that breaks the semantic convention is dropped and
   * counted (never exported half-valid) and never keeps the others from running. Any other error
   * is rethrown once all have run.
   */
  private runAll(runs: readonly (() => void)[]): void {
    let failed = false;
    let error: unknown;
    for (const run of runs) {
      try {
        run();
      } catch (e) {
        if (isConventionError(e)) this.rejected++;
        else if (!failed) [failed, error] = [true, e];
      }
    }
    if (failed) throw error;
  }

  /** Resource of a host's observations: native service identity + host/adapter + session fingerprints. */
  resourceFor(host: HostId, native: OtlpAttributes, sessionId: string | undefined): ResourceAttributes {
    const r: ResourceAttributes = { 'service.name': typeof native['service.name'] === 'string' ? native['service.name'] : host };
    for (const k of ['service.version', 'os.type', 'host.arch'] as const) if (typeof native[k] === 'string') r[k] = native[k] as string;
    r['agent.host.name'] = HOST_NAME[host];
    if (typeof native['service.version'] === 'string') r['agent.host.version'] = native['service.version'] as string;
    r['agent.adapter.name'] = `sf-${host}`;
    r['agent.adapter.version'] = this.ctx.adapterVersion;
    Object.assign(r, this.ctx.session(host, sessionId)?.fingerprints ?? {});
    return r;
  }

  /** Starts (or returns the already started) activation with this native key. */
  start(spec: StartSpec): Activation {
    const existing = this.activations.get(spec.key);
    if (existing) return existing;
    const id = activationIdFor([spec.key]);
    const hostTrace = hostTraceId(spec.hostTraceId);
    const traceId = hostTrace ?? deriveTraceId([spec.host, spec.sessionId ?? '', spec.turnId ?? spec.key]);
    const now = this.ctx.now();
    // the host's span when it gave its trace, else Forge's turn span (only for a turn the host named: never an invented turn id)
    const turn = hostTrace || !spec.turnId ? undefined : this.turnFor(traceId, spec.turnId, spec, now);
    const act: Activation = {
      id, key: spec.key, host: spec.host, sessionId: spec.sessionId, turnId: spec.turnId, conversationId: spec.conversationId,
      name: skillName(spec.name), nameFidelity: 'exact', hostScope: spec.hostScope, trigger: spec.trigger, selector: spec.selector,
      triggerSource: spec.triggerSource, evidence: spec.evidence, traceId, spanId: deriveSpanId([id]),
      parentSpanId: hostTrace ? spec.hostSpanId : turn?.spanId, resource: spec.resource, model: spec.model,
      selectedAt: spec.at, settleOnResult: spec.settleOnResult ?? false, hostPlugin: spec.hostPlugin, pending: [], lastTouched: now,
    };
    if (this.activations.size >= MAX_ACTIVATIONS) this.activations.delete(this.activations.keys().next().value as string);
    this.activations.set(spec.key, act);
    return act;
  }

  /** The turn of a derived trace, started (or widened to `spec.at`) by an activation in it. */
  private turnFor(traceId: string, turnId: string, spec: StartSpec, now: string): Turn {
    let turn = this.turns.get(traceId);
    if (!turn) {
      turn = {
        traceId, spanId: deriveSpanId(['agent_turn', traceId]), turnId, sessionId: spec.sessionId, conversationId: spec.conversationId,
        resource: spec.resource, start: spec.at, end: spec.at, lastTouched: now, emitted: false,
      };
      this.turns.set(traceId, turn);
    }
    turn.start = earlier(turn.start, spec.at);
    turn.end = later(turn.end, spec.at);
    turn.lastTouched = later(turn.lastTouched, now);
    return turn;
  }

  /** Emits the turn span (once): its attributes are span.agent.turn's. */
  private emitTurn(turn: Turn): void {
    turn.emitted = true;
    const span = turnSpan({
      traceId: turn.traceId, spanId: turn.spanId, start: turn.start, end: turn.end,
      attributes: {
        'agent.turn.id': turn.turnId, 'session.id': turn.sessionId, 'agent.host.name': turn.resource['agent.host.name'],
        // only ever a conversation id the host itself reported
        'gen_ai.conversation.id': turn.conversationId,
      },
    });
    this.out.spans.push({ resource: turn.resource, span });
  }

  /** The most recent activation of a session matching `pred`. */
  find(host: HostId, sessionId: string | undefined, pred: (a: Activation) => boolean): Activation | undefined {
    let found: Activation | undefined;
    for (const a of this.activations.values()) if (a.host === host && a.sessionId === sessionId && pred(a)) found = a;
    return found;
  }

  /** Names a redacted activation (from later evidence) and settles it when it can. */
  setName(act: Activation, name: string, fidelity: Activation['nameFidelity']): void {
    if (act.identity || act.name || !skillName(name)) return;
    act.name = name;
    act.nameFidelity = fidelity;
    this.trySettle(act);
  }

  /** Records the directory the host loaded the skill from (exact resolution). */
  setDir(act: Activation, dir: string): void {
    if (!act.identity) act.dir = dir;
  }

  private canSettle(act: Activation): boolean {
    return !act.identity && (act.name !== undefined || act.dir !== undefined) && (!act.settleOnResult || act.finishedAt !== undefined);
  }

  trySettle(act: Activation): void {
    if (this.canSettle(act)) this.settle(act);
  }

  /** Fixes the activation's identity with what is known now and runs the waiting emissions. */
  settle(act: Activation): void {
    if (act.identity) return;
    const session = this.ctx.session(act.host, act.sessionId);
    const res = this.ctx.resolveSkill({ agent: act.host, name: act.name, dir: act.dir, hostScope: act.hostScope, cwd: session?.cwd, at: act.selectedAt });
    act.identity = identityOf(res, act.name, act.hostPlugin === true);
    const key = res.entry && installationKey({ ...res.entry, agent: act.host });
    if (key) this.lastBySkill.set(key, { activationId: act.id, at: act.finishedAt ?? act.selectedAt });
    const pending = act.pending;
    act.pending = [];
    this.runAll(pending);
  }

  private whenSettled(act: Activation, run: () => void): void {
    act.lastTouched = this.ctx.now();
    if (act.identity) this.runAll([run]);
    else {
      act.pending.push(run);
      this.trySettle(act);
    }
  }

  /** Attributes every event about an activation carries (filtered per event by the catalog). */
  private common(act: Activation, fidelity: Activation['nameFidelity']): Record<string, unknown> {
    const session = this.ctx.session(act.host, act.sessionId);
    return {
      'agent.skill.evidence.source': act.evidence,
      'agent.skill.evidence.fidelity': fidelity === 'exact' ? act.nameFidelity : fidelity,
      'agent.skill.evidence.observer': this.ctx.observer,
      'agent.host.name': act.resource['agent.host.name'],
      'agent.host.version': act.resource['agent.host.version'],
      'agent.adapter.name': act.resource['agent.adapter.name'],
      'agent.adapter.version': act.resource['agent.adapter.version'],
      'session.id': act.sessionId,
      'agent.turn.id': act.turnId,
      // only ever a conversation id the host itself reported (Codex); never derived
      'gen_ai.conversation.id': act.conversationId,
      'gen_ai.request.model': act.model,
      'forge.repository.resolution': session?.repositoryResolved ? undefined : 'repo_unresolved',
      'agent.skill.activation.id': act.id,
      'agent.skill.trigger.type': act.trigger,
      'agent.skill.selector.type': act.selector,
      'agent.skill.trigger.source': act.triggerSource,
      ...(this.ctx.content && act.dir ? { 'agent.skill.source.path': act.dir } : {}),
      ...(this.ctx.content && session?.headRevision ? { 'vcs.ref.head.revision': session.headRevision } : {}),
    };
  }

  /** Emits one event (now, or once the activation's identity is settled). */
  emit(act: Activation, name: EventName, attrs: Record<string, unknown>, at: string, idParts: readonly (string | number | undefined)[], fidelity: Activation['nameFidelity'] = 'exact'): void {
    this.whenSettled(act, () => {
      const all: Record<string, unknown> = { ...this.common(act, fidelity), ...act.identity, ...attrs };
      this.push(name, all, act.resource, at, [act.host, act.sessionId, ...idParts], act.traceId, act.spanId);
    });
  }

  /** Emits a non-activation event (inventory, intervention, action) with the given attributes. */
  push(name: EventName, attrs: Record<string, unknown>, resource: ResourceAttributes, at: string, idParts: readonly (string | number | undefined)[], traceId?: string, spanId?: string): void {
    const eventId = eventIdFor([...idParts, name]);
    if (!this.emitted.add(eventId)) return;
    const allowed = eventAttributeKeys(name);
    const attributes: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined && allowed.has(k)) attributes[k] = v;
    attributes['agent.skill.event.id'] = eventId;
    // agent.skill.event.sequence only as the host module passed it (host ordering, registry note);
    // the observer's arrival order is not the host's order and is never reported as one
    this.out.events.push(buildEvent({ name, attributes: attributes as AttributeSet, resource, timestamp: at, observedTimestamp: this.ctx.now(), traceId, spanId: traceId ? spanId : undefined }));
  }

  /**
   * Re-emits an already-normalized catalog event under its own event id (throws when it breaks the
   * catalog). Its agent.skill.event.sequence, if any, is the one its source gave in `attrs`.
   */
  passThrough(name: EventName, eventId: string, attrs: Record<string, unknown>, resource: ResourceAttributes, at: string, traceId?: string, spanId?: string): void {
    if (!this.emitted.add(eventId)) return;
    const attributes = { ...attrs, 'agent.skill.event.id': eventId };
    this.out.events.push(buildEvent({ name, attributes: attributes as AttributeSet, resource, timestamp: at, observedTimestamp: this.ctx.now(), traceId, spanId }));
  }

  /** Records the load result: the loaded / load_failed event, the activation span and metric samples. */
  finish(act: Activation, at: string, outcome: { result: 'ok' | 'error' | 'blocked'; errorType?: string; errorStage?: string; attrs?: Record<string, unknown> }, idParts: readonly (string | number | undefined)[], fidelity: Activation['nameFidelity'] = 'exact'): void {
    if (act.finishedAt) return;
    act.finishedAt = at;
    act.result = outcome.result;
    const turn = this.turns.get(act.traceId);
    if (turn && turn.spanId === act.parentSpanId) turn.end = later(turn.end, at);
    const failed = outcome.result !== 'ok';
    const duration = secondsBetween(act.selectedAt, at);
    const attrs = {
      'agent.skill.phase': failed ? 'load_failed' : 'loaded',
      'agent.skill.result': outcome.result,
      'error.type': outcome.errorType,
      'agent.skill.error.stage': outcome.errorStage,
      ...outcome.attrs,
    };
    this.emit(act, failed ? 'agent.skill.load_failed' : 'agent.skill.loaded', attrs, at, idParts, fidelity);
    this.whenSettled(act, () => {
      const all = { ...this.common(act, fidelity), ...act.identity, ...attrs };
      // the metric samples first: they need no identity, and a span that breaks the convention
      // (dropped and counted by runAll) must not take the activation out of the counts
      this.out.metrics.push({ name: 'agent.skill.activation.count', value: 1, attributes: all });
      this.out.metrics.push({ name: 'agent.skill.activation.duration', value: duration, attributes: all });
      if (failed) this.out.metrics.push({ name: 'agent.skill.load.failure.count', value: 1, attributes: all });
      this.out.spans.push({ resource: act.resource, span: activationSpan({ traceId: act.traceId, spanId: act.spanId, parentSpanId: act.parentSpanId, start: act.selectedAt, end: at, failed, attributes: all }) });
    });
  }

  /** Adds a metric sample produced outside an activation (interventions, drops). */
  metric(sample: NormalizedOutput['metrics'][number]): void {
    this.out.metrics.push(sample);
  }

  /**
   * Settles activations idle longer than the settle timeout with what is known (a still-redacted
   * name resolves to name_redacted), emits the spans of turns idle as long, and forgets finished
   * ones after half an hour. One activation that fails never stops the sweep: the rest still
   * settle, and an unexpected error is rethrown only after the sweep (what was produced stays for
   * the next take()). `all`: settle and emit everything still held, idle or not (the observer is
   * stopping, and what it holds in memory would be lost).
   */
  expire(options: { all?: boolean } = {}): void {
    const now = this.ctx.now();
    const after = options.all ? 0 : (this.ctx.settleAfterSeconds ?? 120);
    let failed = false;
    let error: unknown;
    // a turn is idle when none of its activations was touched for the settle window
    const touched = new Map<string, string>();
    for (const [key, act] of this.activations) {
      touched.set(act.traceId, later(touched.get(act.traceId) ?? act.lastTouched, act.lastTouched));
      const idle = secondsBetween(act.lastTouched, now);
      try {
        if (!act.identity && idle >= after) this.settle(act);
      } catch (e) {
        if (!failed) [failed, error] = [true, e];
      }
      if (idle >= KEEP_FINISHED_SECONDS) this.activations.delete(key);
    }
    for (const [traceId, turn] of this.turns) {
      const idle = secondsBetween(later(turn.lastTouched, touched.get(traceId) ?? turn.lastTouched), now);
      // after the activations: a turn's span goes out with (or after) its activation spans
      if (!turn.emitted && idle >= after) this.runAll([() => this.emitTurn(turn)]);
      if (idle >= KEEP_FINISHED_SECONDS) this.turns.delete(traceId);
    }
    if (failed) throw error;
  }
}
