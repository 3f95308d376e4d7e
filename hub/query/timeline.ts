import { createHash } from 'node:crypto';
import { SfError } from '../../core/errors/index.js';
import { UNRESOLVED_REPOSITORY } from '../projections/apply.js';
import { activationPhase } from '../projections/activations.js';
import { ACTION_EVENTS, changeOf, checkpointLookup, gitAiCheckpointOf, gitAiOutcomeOf, linkedActivations } from '../projections/facts.js';
import type { GitAiCheckpointRow, GitAiOutcomeRow, ObservationEventRow } from '../projections/rows.js';
import type { ProjectionReader } from '../storage/telemetry-ports.js';
import { ACTIVATION_CLOCK_TOLERANCE_MS, activationView, type ActivationView } from './views.js';

/**
 * The repository activation timeline: a page of a repository's events (newest first, through the
 * [account, repository, time] index, so a page costs the same over a million events as over ten),
 * grouped by agent and session into activations with their actions, interventions, load
 * completeness, conflicts, policy decisions and fidelity, plus the gaps where identity is
 * uncertain. Activations touched by the page are shown whole, even when their selection falls
 * outside it.
 */

export interface TimelineQuery {
  accountId: string;
  repositoryId: string;
  fromMs: number;
  toMs: number;
  /**
   * the window as the request gave it, undefined where defaulted (a defaulted bound moves with the
   * clock, so binding a cursor to it would break paging): a cursor is bound to it
   */
  asked: { from?: number; to?: number };
  /** events per page */
  limit: number;
  cursor?: string;
}

export interface SessionView {
  deviceId: string;
  hostName?: string;
  serviceName?: string;
  agentName?: string;
  /** the model, when everything in the session that names one names the same */
  model?: string;
  /** every model the session's activations and events name, sorted (an agent may switch models) */
  models: string[];
  /** undefined when the events carried no session id: an identity gap */
  sessionId?: string;
  firstTime: string;
  lastTime: string;
  activations: ActivationView[];
  /** events of the page tied to no activation (change summaries, inventory, audits, other spans) */
  events: { eventId: string; time: string; eventName: string; evidenceFidelity?: string }[];
  /** Git AI checkpoints of the page whose record lists no activation */
  gitAiCheckpoints: GitAiCheckpointRow[];
  /** Git AI outcomes of the page tied to no activation, neither named on them nor through their checkpoint */
  gitAiOutcomes: GitAiOutcomeRow[];
}

export interface TimelineGap {
  kind:
    | 'repo_unresolved' | 'missing_session' | 'unknown_activation' | 'missing_activation_id' | 'unattributed_action' | 'unattributed_change'
    | 'load_incomplete' | 'inferred_dedupe' | 'time_not_from_source' | 'activation_item_other_repository' | 'action_before_activation';
  count: number;
  detail: string;
  /** up to 20 affected ids */
  sample: string[];
}

export interface TimelinePage {
  repositoryId: string;
  window: { from: string; to: string };
  normalizerVersion?: string;
  sessions: SessionView[];
  gaps: TimelineGap[];
  /** pass as `cursor` for the next (older) page; absent on the last page */
  nextCursor?: string;
}

/** A cursor position: the last (timeMs, eventId, deviceId) of a page (event ids are unique per device). */
export interface CursorPosition {
  timeMs: number;
  eventId: string;
  deviceId?: string;
}

/** What a cursor belongs to: the account, repository and window of the query that gave it out. */
function cursorBinding(q: Pick<TimelineQuery, 'accountId' | 'repositoryId' | 'asked'>): string {
  return createHash('sha256').update(JSON.stringify([q.accountId, q.repositoryId, q.asked.from ?? null, q.asked.to ?? null])).digest('base64url').slice(0, 22);
}

export const encodeCursor = (q: Pick<TimelineQuery, 'accountId' | 'repositoryId' | 'asked'>, c: CursorPosition): string =>
  Buffer.from(JSON.stringify([c.timeMs, c.eventId, cursorBinding(q), ...(c.deviceId ? [c.deviceId] : [])])).toString('base64url');

/**
 * The position a cursor names; SF_E_USAGE for one that is not a cursor of this API, or one given
 * out for another query (repository, from or to): starting over from the newest page instead
 * would make a client that follows cursors read pages again without noticing, and continuing
 * another query's position would answer a window the response does not name.
 */
export function decodeCursor(q: Pick<TimelineQuery, 'accountId' | 'repositoryId' | 'asked'>, cursor: string): CursorPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const [timeMs, eventId, binding, deviceId] = Array.isArray(parsed) && (parsed.length === 3 || parsed.length === 4) ? parsed : [];
  const isId = (v: unknown) => typeof v === 'string' && /^[\x21-\x7e]{1,128}$/.test(v);
  if (!(typeof timeMs === 'number' && Number.isFinite(timeMs) && isId(eventId) && typeof binding === 'string' && (deviceId === undefined || isId(deviceId)))) {
    throw new SfError('SF_E_USAGE', 'the cursor is not one this API gave out', { hint: 'pass the nextCursor of the previous page unchanged, or leave cursor out to start from the newest events' });
  }
  if (binding !== cursorBinding(q)) {
    throw new SfError('SF_E_USAGE', 'the cursor belongs to another query (its repository, from or to differ)', {
      hint: 'send the cursor with the same repository, from and to as the request whose nextCursor it was, or leave cursor out to start a new query',
    });
  }
  return { timeMs, eventId, ...(deviceId !== undefined ? { deviceId } : {}) };
}

/** A gap over distinct ids (an action shared by two activations is one action). */
function gap(kind: TimelineGap['kind'], ids: string[], detail: string): TimelineGap | undefined {
  const distinct = [...new Set(ids)];
  return distinct.length ? { kind, count: distinct.length, detail, sample: distinct.slice(0, 20) } : undefined;
}

/** The ids of rows whose link to a skill is inferred or unknown: identity the timeline cannot vouch for. */
const uncertain = (rows: { eventId: string; attributionFidelity: string }[]): string[] =>
  rows.filter((r) => r.attributionFidelity === 'inferred' || r.attributionFidelity === 'unknown').map((r) => r.eventId);

/** An event of the page tied to no shown activation: a Git AI record as its row, anything else by name. */
function showUnattached(session: SessionView, e: ObservationEventRow, outcome: GitAiOutcomeRow | undefined): void {
  const checkpoint = gitAiCheckpointOf(e);
  if (checkpoint) session.gitAiCheckpoints.push(checkpoint);
  else if (outcome) session.gitAiOutcomes.push(outcome);
  else session.events.push({ eventId: e.eventId, time: e.time, eventName: e.eventName, ...(e.evidenceFidelity ? { evidenceFidelity: e.evidenceFidelity } : {}) });
}

export function repositoryTimeline(reader: ProjectionReader, q: TimelineQuery): TimelinePage {
  const before = q.cursor !== undefined ? decodeCursor(q, q.cursor) : undefined;
  const entries = reader.timeline(q.accountId, q.repositoryId, { fromMs: q.fromMs, toMs: q.toMs, limit: q.limit + 1, before });
  const page = entries.slice(0, q.limit);
  const sessions = new Map<string, SessionView>();
  const activations = new Map<string, ActivationView | null>();
  const unknownActivations: string[] = [];
  const missingActivationId: string[] = [];
  const unlinkedActions: string[] = [];
  const unlinkedChanges: string[] = [];
  const checkpointOf = checkpointLookup(reader);
  const missingSession: string[] = [];
  const inferredDedupe: string[] = [];
  const timeGaps: string[] = [];
  let normalizerVersion: string | undefined;

  // one session per device, host, agent and session id: two agents (a planner and a coder) in one
  // host session are two sessions, each headed by its own agent
  const sessionOf = (e: { deviceId: string; hostName?: string; serviceName?: string; agentName?: string; model?: string; sessionId?: string }, time: string): SessionView => {
    const key = JSON.stringify([e.deviceId, e.hostName ?? e.serviceName ?? '', e.agentName ?? null, e.sessionId ?? null]);
    let s = sessions.get(key);
    if (!s) {
      s = { deviceId: e.deviceId, models: [], firstTime: time, lastTime: time, activations: [], events: [], gitAiCheckpoints: [], gitAiOutcomes: [] };
      for (const k of ['hostName', 'serviceName', 'agentName', 'sessionId'] as const) if (e[k] !== undefined) s[k] = e[k];
      sessions.set(key, s);
    }
    if (e.model !== undefined && !s.models.includes(e.model)) s.models.push(e.model);
    if (time < s.firstTime) s.firstTime = time;
    if (time > s.lastTime) s.lastTime = time;
    return s;
  };

  for (const entry of page) {
    const e: ObservationEventRow | undefined = reader.getEvent(q.accountId, entry.eventId, entry.deviceId);
    if (!e) continue;
    normalizerVersion ??= e.normalizerVersion;
    if (!e.sessionId) missingSession.push(e.eventId);
    if (e.dedupBasis === 'batch_fingerprint') inferredDedupe.push(e.eventId);
    if (e.timeSource !== 'source') timeGaps.push(e.eventId);
    // a change summary or Git AI outcome is linked through its checkpoint's record too (the join its row shows)
    const outcome = gitAiOutcomeOf(e, checkpointOf);
    const joined = outcome ?? changeOf(e, checkpointOf);
    const linked = joined ? joined.activationIds : e.eventName === 'agent.skill.conflict.detected' && e.activationId ? [e.activationId] : linkedActivations(e);
    // an activation phase event (selection, load ...) without the activation id it requires builds no activation
    if (!e.activationId && activationPhase(e) !== 'other') missingActivationId.push(e.eventId);
    // an action or a change outcome linked to no activation at all
    if (linked.length === 0 && ACTION_EVENTS.has(e.eventName)) unlinkedActions.push(e.eventId);
    if (linked.length === 0 && joined) unlinkedChanges.push(e.eventId);
    let attached = false;
    for (const id of linked) {
      // activation ids are unique per device only: the event's device names the activation
      const key = `${e.deviceId} ${id}`;
      if (!activations.has(key)) {
        // only this repository's items: the others are counted in the view (otherRepositoryItems)
        const view = activationView(reader, q.accountId, e.deviceId, id, q.repositoryId) ?? null;
        activations.set(key, view);
        if (view) sessionOf(view, view.firstSeen).activations.push(view);
        else unknownActivations.push(id);
      }
      if (activations.get(key)) attached = true;
    }
    const session = sessionOf(e, e.time);
    if (!attached) showUnattached(session, e, outcome);
  }

  const views = [...activations.values()].filter((v): v is ActivationView => v !== null);
  const unattributed = [...unlinkedActions, ...views.flatMap((v) => uncertain(v.actions))];
  const unattributedChanges = [...unlinkedChanges, ...views.flatMap((v) => [...uncertain(v.changes), ...uncertain(v.gitAiOutcomes)])];
  const unresolved = reader.countTimeline(q.accountId, UNRESOLVED_REPOSITORY, q.fromMs, q.toMs, 10_000);
  const gaps = [
    unresolved
      ? { kind: 'repo_unresolved' as const, count: unresolved, detail: `${unresolved >= 10_000 ? 'at least ' : ''}${unresolved} events of this account in the window have no resolved repository (resolved when the hub received them); link the repository's fingerprint so later events are attributed`, sample: [] }
      : undefined,
    gap('missing_session', missingSession, 'events without a session id; they are grouped per device and agent only'),
    gap('unknown_activation', unknownActivations, 'activation ids referenced by actions or feedback but never selected or loaded in the retained evidence'),
    gap('missing_activation_id', missingActivationId, 'activation events (selected, load_started, loaded, load_failed, activation spans) without the agent.skill.activation.id they require: they build no activation and are not counted in usage'),
    gap('unattributed_action', unattributed, 'actions linked to no activation, or whose link to a skill is inferred or unknown, not exact or shared'),
    gap('unattributed_change', unattributedChanges, 'change summaries and Git AI outcomes linked to no activation (neither named on them nor through their checkpoint), or whose link to a skill is inferred or unknown, not exact or shared'),
    gap('load_incomplete', views.filter((v) => v.load === 'pending' || v.load === 'unknown').map((v) => v.activationId), 'activations without an observed load result'),
    gap('inferred_dedupe', inferredDedupe, 'events without agent.skill.event.id: deduplicated on a batch fingerprint (inferred)'),
    gap('time_not_from_source', timeGaps, 'events whose source timestamp was missing or implausible; placed at the observed or receipt time'),
    gap('activation_item_other_repository', views.flatMap((v) => v.otherRepositoryItems), 'items linked to a shown activation but resolved to another repository or to none (repo_unresolved): not shown as this repository\'s'),
    gap('action_before_activation', views.flatMap((v) => v.actionsBeforeActivation), `actions timed more than ${ACTIVATION_CLOCK_TOLERANCE_MS / 1000} s before their activation was first seen: they cannot have happened under the skill and are credited inferred at most (times not from the source are not compared)`),
  ].filter((g): g is TimelineGap => g !== undefined);

  const byTime = (a: { firstSeen: string }, b: { firstSeen: string }) => (a.firstSeen < b.firstSeen ? -1 : a.firstSeen > b.firstSeen ? 1 : 0);
  const out = [...sessions.values()].sort((a, b) => (a.lastTime < b.lastTime ? 1 : a.lastTime > b.lastTime ? -1 : 0));
  for (const s of out) {
    s.models.sort();
    if (s.models.length === 1) s.model = s.models[0];
    s.activations.sort(byTime);
    for (const list of [s.events, s.gitAiCheckpoints, s.gitAiOutcomes]) list.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  }
  const result: TimelinePage = {
    repositoryId: q.repositoryId,
    window: { from: new Date(q.fromMs).toISOString(), to: new Date(q.toMs).toISOString() },
    sessions: out.filter((s) => s.activations.length || s.events.length || s.gitAiCheckpoints.length || s.gitAiOutcomes.length),
    gaps,
  };
  if (normalizerVersion) result.normalizerVersion = normalizerVersion;
  if (entries.length > q.limit) result.nextCursor = encodeCursor(q, page[page.length - 1]);
  return result;
}
