import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { idList, msOfIso } from '../normalize/values.js';
import type { EventHead, ProjectionWriter } from '../storage/telemetry-ports.js';
import { activationPhase, mergeActivation, snapshotActivation, type ActivationInput } from './activations.js';
import { ACTION_EVENTS, CHANGE_SUMMARY, checkpointIdOf, FEEDBACK_EVENTS, feedbackKind, GIT_AI_CHECKPOINT, GIT_AI_OUTCOME_EVENTS, linkedActivations } from './facts.js';
import type { RollupAccumulator } from './rollups.js';
import type { ObservationEventRow, SkillActivationRow } from './rows.js';

/** Timeline bucket of events whose repository the hub could not resolve for the account. */
export const UNRESOLVED_REPOSITORY = '~unresolved';

/** Activation ids an event ties together (actions and changes list them; conflicts name the other side). */
function coactiveIds(e: ObservationEventRow): string[] {
  if (e.eventName === 'agent.skill.conflict.detected') {
    const others = idList(e.attributes as OtlpAttributes, 'agent.skill.conflict.activation.ids') ?? [];
    return [...new Set([...(e.activationId ? [e.activationId] : []), ...others])].sort();
  }
  return linkedActivations(e);
}

/**
 * Events applyEvent only indexes: actions that are not activation phases. For them it reads
 * nothing beyond the EventHead fields (ids, name, time, phase, activation links), so the
 * normalizer thread decodes only their heads. Keep this next to applyEvent: a change there that
 * reads more of such events must change this too (change summaries are not index-only: their
 * git.ai.checkpoint.id, an attribute, puts them in the checkpoint index).
 */
export function indexOnly(head: EventHead): boolean {
  return INDEX_ONLY_EVENTS.has(head.eventName) && head.phase !== 'deactivated';
}

/** The event names `indexOnly` can be true for. */
export const INDEX_ONLY_EVENTS: ReadonlySet<string> = new Set(ACTION_EVENTS);

/**
 * Indexes a Git AI checkpoint record, outcome or change summary under the checkpoint it names:
 * change summaries and outcomes are joined to the checkpoint's record (its active set, its
 * correlation) on read, whichever arrived first (facts.ts `checkpointLookup`), and listed under the
 * activations the record names. The record has an index of its own, so the join finds it however
 * many outcomes name the checkpoint. None of these is index-only: their attributes are here.
 */
function indexGitAi(w: ProjectionWriter, e: ObservationEventRow, item: { timeMs: number; eventId: string; kind: string }): void {
  const isRecord = e.eventName === GIT_AI_CHECKPOINT;
  if (!isRecord && !GIT_AI_OUTCOME_EVENTS.has(e.eventName) && e.eventName !== CHANGE_SUMMARY) return;
  const checkpointId = checkpointIdOf(e);
  if (checkpointId === undefined) return;
  if (isRecord) w.indexCheckpointRecord(e.accountId, e.deviceId, checkpointId, item);
  else w.indexCheckpoint(e.accountId, e.deviceId, checkpointId, item);
}

/**
 * An activation's entry in the skill index, a function of its row: at its first event's time (the
 * day usage counts it on), under the skill the row names, pointing at its smallest event id.
 */
function skillEntry(r: SkillActivationRow | undefined): { skillId: string; timeMs: number; eventId: string; deviceId: string } | undefined {
  if (!r?.skillId || r.rawEventIds.length === 0) return undefined;
  return { skillId: r.skillId, timeMs: msOfIso(r.firstSeen), eventId: r.rawEventIds[0], deviceId: r.deviceId };
}

/**
 * Applies one normalized event to every projection it touches, through the writer of the current
 * transaction (`encoded`: the row already in the store's encoding). False (nothing written) when
 * the event's device already sent an event with its id: the dedupe is per account, device and
 * event id, like activations, so another device's event with that id is its own (two agents
 * reporting one commit with a deterministic id both keep their outcome, whichever arrives first).
 */
export function applyEvent(w: ProjectionWriter, e: ObservationEventRow, timeMs: number, rollups: RollupAccumulator, span?: ActivationInput['span'], encoded?: Uint8Array): boolean {
  const acct = e.accountId;
  const item = { timeMs, eventId: e.eventId, kind: e.eventName, deviceId: e.deviceId };
  if (!w.insertEvent(e, encoded)) return false;
  w.indexTimeline(acct, e.repositoryId ?? UNRESOLVED_REPOSITORY, item);
  indexGitAi(w, e, item);

  const phase = activationPhase(e);
  const isPhase = e.activationId !== undefined && phase !== 'other';
  const device = e.deviceId;
  if (isPhase) {
    const stored = w.getActivation(acct, device, e.activationId!);
    const prev = stored && snapshotActivation(stored);
    const before = skillEntry(stored);
    const next = mergeActivation(stored, { event: e, span }, w.coactive(acct, device, e.activationId!));
    w.putActivation(next);
    rollups.activation(w, prev, next);
    // feedback that arrived before this row (or before it named its skill) moves to where the row puts it
    if (!stored || stored.packageId !== next.packageId || stored.skillId !== next.skillId || stored.artifactVersion !== next.artifactVersion || stored.hostName !== next.hostName) {
      for (const f of w.linkedEvents(acct, device, e.activationId!, FEEDBACK_EVENTS)) {
        const kind = feedbackKind(f);
        if (kind && f.activationId === e.activationId) rollups.moveFeedback(f, kind, stored, next);
      }
    }
    // the skill index holds each activation once, as a function of its row (skillEntry), so it
    // moves with the row: the same whichever event arrives first, and on the day usage counts it
    // (a selection may know only the SKIT; its load result names the skill). Its other events hang off the activation.
    const after = skillEntry(next);
    if (before?.skillId !== after?.skillId || before?.timeMs !== after?.timeMs || before?.eventId !== after?.eventId) {
      if (before) w.unindexSkill(acct, before.skillId, before);
      if (after) w.indexSkill(acct, after.skillId, { timeMs: after.timeMs, eventId: after.eventId, kind: 'activation', deviceId: after.deviceId });
    }
  }

  const linked = coactiveIds(e);
  // skill-level evidence with no activation (audits, inventory, quarantine, unlinked feedback) is indexed by skill directly
  if (e.skillId && !isPhase && linked.length === 0) w.indexSkill(acct, e.skillId, item);
  // an activation's own phase events live in its row; its item index holds what happened under it
  if (!isPhase) for (const id of linked) w.linkActivationItem(acct, device, id, item);
  for (let i = 0; i < linked.length; i++) {
    for (let j = i + 1; j < linked.length; j++) {
      if (!w.addCoactive(acct, device, linked[i], linked[j])) continue;
      for (const id of [linked[i], linked[j]]) {
        const row = w.getActivation(acct, device, id);
        if (row) w.putActivation({ ...row, activeSet: w.coactive(acct, device, id).filter((x) => x !== id).sort() });
      }
    }
  }

  // actions, changes and feedback rows are derived from the event row on read (facts.ts); only
  // feedback moves the rollups
  if (!ACTION_EVENTS.has(e.eventName) && e.eventName !== CHANGE_SUMMARY) {
    const kind = feedbackKind(e);
    if (kind) rollups.feedback(e, kind, e.activationId ? w.getActivation(acct, device, e.activationId) : undefined);
  }
  return true;
}
