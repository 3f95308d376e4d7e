import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { idList, str } from '../normalize/values.js';
import type {
  ActivationActionRow, ChangeOutcomeRow, ObservationEventRow, SkillActivationRow, SkillFeedbackIncidentRow,
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

/** A linked event the view has no section for (a Git AI checkpoint, a plain span, an inventory change ...). */
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
  const view: ActivationView = { ...row, actions: [], changes: [], interventions: [], conflicts: [], policyDecisions: [], events: [], truncated: false };
  const items = reader.activationItems(accountId, activationId, MAX_ITEMS_PER_ACTIVATION + 1, deviceId);
  view.truncated = items.length > MAX_ITEMS_PER_ACTIVATION;
  for (const item of items.slice(0, MAX_ITEMS_PER_ACTIVATION)) {
    if (item.kind === 'agent.action.completed' || item.kind === 'span.agent.action') {
      const action = reader.getAction(accountId, item.eventId, deviceId);
      if (action) view.actions.push(action);
    } else if (item.kind === 'agent.change.summary') {
      const change = reader.getChange(accountId, item.eventId, deviceId);
      if (change) view.changes.push(change);
    } else if (item.kind === 'agent.skill.conflict.detected') {
      const e = reader.getEvent(accountId, item.eventId, deviceId);
      if (e) view.conflicts.push(conflictView(e));
    } else if (item.kind === 'agent.skill.policy.decision') {
      const e = reader.getEvent(accountId, item.eventId, deviceId);
      if (e) view.policyDecisions.push(policyView(e));
    } else {
      const f = reader.getFeedback(accountId, item.eventId, deviceId);
      if (f) view.interventions.push(f);
      else {
        const e = reader.getEvent(accountId, item.eventId, deviceId);
        if (e) view.events.push({ eventId: e.eventId, time: e.time, eventName: e.eventName, ...(e.evidenceFidelity ? { evidenceFidelity: e.evidenceFidelity } : {}) });
      }
    }
  }
  return view;
}
