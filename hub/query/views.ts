import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { idList, str } from '../normalize/values.js';
import { checkpointIdOf, checkpointLookup, gitAiCheckpointOf, gitAiOutcomeOf, GIT_AI_CHECKPOINT, GIT_AI_OUTCOME_EVENTS, MAX_CHECKPOINT_ITEMS, type CheckpointLookup } from '../projections/facts.js';
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
  /** true when more linked items exist than the view shows */
  truncated: boolean;
}

const MAX_ITEMS_PER_ACTIVATION = 200;

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
 * The full view of one activation of a device (activation ids are unique per device only), or
 * undefined when no event ever established it.
 */
export function activationView(reader: ProjectionReader, accountId: string, deviceId: string, activationId: string): ActivationView | undefined {
  const row = reader.getActivation(accountId, activationId, deviceId);
  if (!row) return undefined;
  const view: ActivationView = { ...row, actions: [], changes: [], interventions: [], conflicts: [], policyDecisions: [], gitAiCheckpoints: [], gitAiOutcomes: [], events: [], truncated: false };
  const gitAi = gitAiCollector(reader, accountId, view);
  const items = reader.activationItems(accountId, activationId, MAX_ITEMS_PER_ACTIVATION + 1, deviceId);
  view.truncated = items.length > MAX_ITEMS_PER_ACTIVATION;
  for (const item of items.slice(0, MAX_ITEMS_PER_ACTIVATION)) {
    if (item.kind === 'agent.action.completed' || item.kind === 'span.agent.action') {
      const action = reader.getAction(accountId, item.eventId);
      if (action) view.actions.push(action);
    } else if (item.kind === 'agent.change.summary') {
      const change = reader.getChange(accountId, item.eventId);
      if (change) view.changes.push(change);
    } else if (item.kind === 'agent.skill.conflict.detected') {
      const e = reader.getEvent(accountId, item.eventId);
      if (e) view.conflicts.push(conflictView(e));
    } else if (item.kind === 'agent.skill.policy.decision') {
      const e = reader.getEvent(accountId, item.eventId);
      if (e) view.policyDecisions.push(policyView(e));
    } else if (gitAi.accepts(item.kind)) {
      const e = reader.getEvent(accountId, item.eventId);
      if (e) gitAi.add(e);
    } else {
      const f = reader.getFeedback(accountId, item.eventId);
      if (f) view.interventions.push(f);
      else {
        const e = reader.getEvent(accountId, item.eventId);
        if (e) view.events.push({ eventId: e.eventId, time: e.time, eventName: e.eventName, ...(e.evidenceFidelity ? { evidenceFidelity: e.evidenceFidelity } : {}) });
      }
    }
  }
  gitAi.finish();
  return view;
}

/**
 * Fills an activation view's Git AI sections: its checkpoints, the outcomes it is named on, and the
 * outcomes of its checkpoints that name only the checkpoint (joined through the checkpoint index).
 */
function gitAiCollector(reader: ProjectionReader, accountId: string, view: ActivationView) {
  const checkpointOf: CheckpointLookup = checkpointLookup(reader);
  const seen = new Set<string>();
  // an outcome can be reached twice: named on the activation and through its checkpoint
  const addOutcome = (e: ObservationEventRow) => {
    const outcome = seen.has(e.eventId) ? undefined : gitAiOutcomeOf(e, checkpointOf);
    if (!outcome) return;
    seen.add(e.eventId);
    view.gitAiOutcomes.push(outcome);
  };
  return {
    accepts: (kind: string) => kind === GIT_AI_CHECKPOINT || GIT_AI_OUTCOME_EVENTS.has(kind),
    add(e: ObservationEventRow) {
      const checkpoint = gitAiCheckpointOf(e);
      if (!checkpoint) return addOutcome(e);
      view.gitAiCheckpoints.push(checkpoint);
      const checkpointId = checkpointIdOf(e);
      if (checkpointId === undefined) return;
      for (const item of reader.checkpointItems(accountId, e.deviceId, checkpointId, MAX_CHECKPOINT_ITEMS)) {
        const outcome = GIT_AI_OUTCOME_EVENTS.has(item.kind) ? reader.getEvent(accountId, item.eventId) : undefined;
        if (outcome) addOutcome(outcome);
      }
    },
    finish: () => view.gitAiOutcomes.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0)),
  };
}
