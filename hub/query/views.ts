import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { idList, msOfIso, str } from '../normalize/values.js';
import { UNRESOLVED_REPOSITORY } from '../projections/apply.js';
import {
  ACTION_EVENTS, actionRow, changeOf, checkpointIdOf, CHANGE_SUMMARY, checkpointLookup, feedbackOf, gitAiCheckpointOf, gitAiOutcomeOf, GIT_AI_CHECKPOINT, GIT_AI_OUTCOME_EVENTS,
  type CheckpointLookup,
} from '../projections/facts.js';
import type {
  ActivationActionRow, ChangeOutcomeRow, GitAiCheckpointRow, GitAiOutcomeRow, ObservationEventRow, SkillActivationRow, SkillFeedbackIncidentRow,
} from '../projections/rows.js';
import type { ProjectionReader } from '../storage/telemetry-ports.js';

/**
 * Query-side views of one activation: the activation row plus everything linked to it (actions,
 * changes, interventions and incidents, conflicts, policy decisions), read through the
 * activation's item index.
 */

export interface ConflictView {
  eventId: string;
  time: string;
  conflictClass?: string;
  resolution?: string;
  precedenceSource?: string;
  withActivationIds: string[];
}

export interface PolicyDecisionView {
  eventId: string;
  time: string;
  decision?: string;
  capability?: string;
  policySource?: string;
  approvalState?: string;
  reasonCode?: string;
}

/** A linked event the view has no section for (a plain span, an inventory change ...). */
export interface LinkedEventView {
  eventId: string;
  time: string;
  eventName: string;
  evidenceFidelity?: string;
}

export interface ActivationView extends SkillActivationRow {
  actions: ActivationActionRow[];
  /** change summaries (change_outcomes) naming the activation or one of its checkpoints, oldest first */
  changes: ChangeOutcomeRow[];
  interventions: SkillFeedbackIncidentRow[];
  conflicts: ConflictView[];
  policyDecisions: PolicyDecisionView[];
  /** the Git AI checkpoints whose record lists the activation (git_ai_checkpoints) */
  gitAiCheckpoints: GitAiCheckpointRow[];
  /** Git AI line outcomes (git_ai_attribution_outcomes) naming the activation or one of its checkpoints, oldest first */
  gitAiOutcomes: GitAiOutcomeRow[];
  /** every other event linked to the activation: nothing linked is left out */
  events: LinkedEventView[];
  /**
   * linked items a repository's view leaves out because they were resolved to another repository
   * or to none (repo_unresolved): counted here so nothing vanishes silently (empty when unscoped)
   */
  otherRepositoryItems: string[];
  /**
   * actions timed more than ACTIVATION_CLOCK_TOLERANCE_MS before the activation was first seen:
   * they cannot have happened under the skill, so they are shown credited `inferred` at most
   */
  actionsBeforeActivation: string[];
  /** true when more linked items exist than the view shows */
  truncated: boolean;
}

const MAX_ITEMS_PER_ACTIVATION = 200;
/** Bound on the records a view lists per checkpoint of the activation (a checkpoint has a few outcomes, a device may send many). */
const MAX_ITEMS_PER_CHECKPOINT = 200;

export function conflictView(e: ObservationEventRow): ConflictView {
  const a = e.attributes as OtlpAttributes;
  const out: ConflictView = { eventId: e.eventId, time: e.time, withActivationIds: idList(a, 'agent.skill.conflict.activation.ids') ?? [] };
  const put = (k: 'conflictClass' | 'resolution' | 'precedenceSource', v: string | undefined) => v !== undefined && (out[k] = v);
  put('conflictClass', str(a, 'agent.skill.conflict.class'));
  put('resolution', str(a, 'agent.skill.conflict.resolution'));
  put('precedenceSource', str(a, 'agent.skill.conflict.precedence.source'));
  return out;
}

export function policyView(e: ObservationEventRow): PolicyDecisionView {
  const a = e.attributes as OtlpAttributes;
  const out: PolicyDecisionView = { eventId: e.eventId, time: e.time };
  const put = (k: Exclude<keyof PolicyDecisionView, 'eventId' | 'time'>, v: string | undefined) => v !== undefined && (out[k] = v);
  put('decision', str(a, 'agent.skill.policy.decision'));
  put('capability', str(a, 'agent.skill.policy.capability'));
  put('policySource', str(a, 'agent.skill.policy.source'));
  put('approvalState', str(a, 'agent.action.approval.state'));
  put('reasonCode', e.reasonCode);
  return out;
}

/**
 * How far an action may be timed before its activation's first event and still count as under it:
 * the events come from different emitters of one device clock (host hooks, adapter, SDK), some with
 * second precision, so a few seconds of disorder are normal, an hour is not.
 */
export const ACTIVATION_CLOCK_TOLERANCE_MS = 5_000;

/**
 * True when an action is timed before its activation was first seen, beyond the tolerance. Only a
 * source timestamp is compared: a time the hub substituted (receipt or observed time, the
 * time_not_from_source gap) is not on the device's clock the activation's time is on.
 */
function beforeActivation(e: ObservationEventRow, firstSeenMs: number): boolean {
  return e.timeSource === 'source' && msOfIso(e.time) < firstSeenMs - ACTIVATION_CLOCK_TOLERANCE_MS;
}

/** Puts one linked event in its section of the view (actions, changes, Git AI records, conflicts, ...). */
function place(view: ActivationView, e: ObservationEventRow, firstSeenMs: number, gitAi: ReturnType<typeof gitAiCollector>): void {
  if (ACTION_EVENTS.has(e.eventName)) {
    const early = beforeActivation(e, firstSeenMs);
    view.actions.push(actionRow(e, early ? 'inferred' : 'exact'));
    if (early) view.actionsBeforeActivation.push(e.eventId);
    return;
  }
  if (gitAi.accepts(e.eventName)) gitAi.add(e);
  else if (e.eventName === 'agent.skill.conflict.detected') view.conflicts.push(conflictView(e));
  else if (e.eventName === 'agent.skill.policy.decision') view.policyDecisions.push(policyView(e));
  else {
    const f = feedbackOf(e);
    if (f) view.interventions.push(f);
    else view.events.push({ eventId: e.eventId, time: e.time, eventName: e.eventName, ...(e.evidenceFidelity ? { evidenceFidelity: e.evidenceFidelity } : {}) });
  }
}

/**
 * The full view of one activation of a device (activation ids are unique per device only), or
 * undefined when no event ever established it. With `repositoryId` (a repository's timeline) it
 * shows only the linked items resolved to that repository and counts the others in
 * `otherRepositoryItems`: client repository hints resolve only to the account's linked
 * repositories, so an item of an unlinked one is not this repository's.
 */
export function activationView(reader: ProjectionReader, accountId: string, deviceId: string, activationId: string, repositoryId?: string): ActivationView | undefined {
  const row = reader.getActivation(accountId, activationId, deviceId);
  if (!row) return undefined;
  const view: ActivationView = {
    ...row, actions: [], changes: [], interventions: [], conflicts: [], policyDecisions: [], gitAiCheckpoints: [], gitAiOutcomes: [], events: [], otherRepositoryItems: [], actionsBeforeActivation: [], truncated: false,
  };
  const inScope = (e: ObservationEventRow) => repositoryId === undefined || (e.repositoryId ?? UNRESOLVED_REPOSITORY) === repositoryId;
  const gitAi = gitAiCollector(reader, accountId, view, inScope);
  const items = reader.activationItems(accountId, activationId, MAX_ITEMS_PER_ACTIVATION + 1, deviceId);
  view.truncated = items.length > MAX_ITEMS_PER_ACTIVATION;
  const firstSeenMs = msOfIso(row.firstSeen);
  // one event read per item: the fact rows derive from it (as the reader's getAction/getChange do)
  for (const item of items.slice(0, MAX_ITEMS_PER_ACTIVATION)) {
    const e = reader.getEvent(accountId, item.eventId, deviceId);
    if (!e) continue;
    if (!inScope(e)) view.otherRepositoryItems.push(e.eventId);
    else place(view, e, firstSeenMs, gitAi);
  }
  gitAi.finish();
  return view;
}

const byTimeThenId = (a: { time: string; eventId: string }, b: { time: string; eventId: string }) =>
  a.time < b.time ? -1 : a.time > b.time ? 1 : a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;

/**
 * Fills an activation view's changes and Git AI sections: its checkpoints, the changes and outcomes
 * it is named on, and those of its checkpoints that name only the checkpoint (joined through the
 * checkpoint index), each credited as its row says (facts.ts `changeRow`, `gitAiOutcomeRow`).
 */
function gitAiCollector(reader: ProjectionReader, accountId: string, view: ActivationView, inScope: (e: ObservationEventRow) => boolean) {
  const checkpointOf: CheckpointLookup = checkpointLookup(reader);
  const seen = new Set<string>();
  const checkpoints = new Set<string>();
  // a change or outcome can be reached twice: named on the activation and through its checkpoint
  const addJoined = (e: ObservationEventRow) => {
    if (seen.has(e.eventId)) return;
    seen.add(e.eventId);
    const change = changeOf(e, checkpointOf);
    const outcome = change ? undefined : gitAiOutcomeOf(e, checkpointOf);
    if (change) view.changes.push(change);
    else if (outcome) view.gitAiOutcomes.push(outcome);
  };
  return {
    accepts: (kind: string) => kind === GIT_AI_CHECKPOINT || kind === CHANGE_SUMMARY || GIT_AI_OUTCOME_EVENTS.has(kind),
    add(e: ObservationEventRow) {
      const checkpoint = gitAiCheckpointOf(e);
      if (!checkpoint) return addJoined(e);
      view.gitAiCheckpoints.push(checkpoint);
      const checkpointId = checkpointIdOf(e);
      // a checkpoint with two records is listed once
      if (checkpointId === undefined || checkpoints.has(checkpointId)) return;
      checkpoints.add(checkpointId);
      const items = reader.checkpointItems(accountId, e.deviceId, checkpointId, MAX_ITEMS_PER_CHECKPOINT + 1);
      if (items.length > MAX_ITEMS_PER_CHECKPOINT) view.truncated = true;
      for (const item of items.slice(0, MAX_ITEMS_PER_CHECKPOINT)) {
        const joined = reader.getEvent(accountId, item.eventId, e.deviceId);
        // a repository's view leaves out what another repository's change or outcome says (counted, like linked items)
        if (joined && !inScope(joined)) view.otherRepositoryItems.push(joined.eventId);
        else if (joined) addJoined(joined);
      }
    },
    // what a checkpoint brought in sits among what the activation's own index listed
    finish() {
      view.changes.sort(byTimeThenId);
      view.gitAiOutcomes.sort(byTimeThenId);
    },
  };
}
