import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { bool, idAttr, num, str, strList } from '../normalize/values.js';
import type {
  ActivationActionRow, AttributionFidelity, ChangeOutcomeRow, FeedbackKind, ObservationEventRow, RowIdentity, SkillFeedbackIncidentRow,
} from './rows.js';

/**
 * Pure builders of the fact projections (activation_actions, change_outcomes,
 * skill_feedback_incidents) from one normalized event. Each fact row is a function of its
 * observation_events row alone, so the store derives it on read (`actionOf`, `changeOf`,
 * `feedbackOf`) instead of writing a second copy of every action, change and intervention.
 */

function identity(e: ObservationEventRow): RowIdentity {
  const out: RowIdentity = { accountId: e.accountId, deviceId: e.deviceId, repositoryResolution: e.repositoryResolution };
  if (e.repositoryId) out.repositoryId = e.repositoryId;
  if (e.sessionId) out.sessionId = e.sessionId;
  if (e.turnId) out.turnId = e.turnId;
  return out;
}

function put<T extends object, K extends keyof T>(row: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) row[key] = value;
}

/** The ids an event links to: its activation id list, else its single activation id. */
export function linkedActivations(e: ObservationEventRow): string[] {
  if (e.activationIds?.length) return e.activationIds;
  return e.activationId ? [e.activationId] : [];
}

/** Evidence that can only ever support an inferred attribution (spec, Correlation keys: "never exact"). */
const FALLBACK_SOURCES: ReadonlySet<string> = new Set(['transcript', 'filesystem']);

/**
 * Attribution never gives one skill exclusive credit when several were active: an `exact` claim
 * over several activations becomes `shared`; no activation at all is `unknown`. Evidence from a
 * fallback sensor (a transcript, the filesystem) or itself inferred supports an inferred
 * attribution at best, whatever the claim: exact and inferred observations are never collapsed.
 */
export function attribution(ids: readonly string[], claimed: string | undefined, evidence: { source?: string; fidelity?: string } = {}): { fidelity: AttributionFidelity; reported?: string } {
  if (ids.length === 0) return { fidelity: 'unknown', ...(claimed && claimed !== 'unknown' ? { reported: claimed } : {}) };
  const known: AttributionFidelity[] = ['exact', 'shared', 'inferred', 'unknown'];
  const c = known.includes(claimed as AttributionFidelity) ? (claimed as AttributionFidelity) : undefined;
  const weak = evidence.fidelity === 'inferred' || (evidence.source !== undefined && FALLBACK_SOURCES.has(evidence.source));
  if (weak && (c === 'exact' || c === 'shared')) return { fidelity: 'inferred', reported: c };
  if (ids.length > 1) {
    if (c === undefined || c === 'exact') return { fidelity: 'shared', ...(c ? { reported: c } : {}) };
    return { fidelity: c };
  }
  return { fidelity: c ?? 'unknown' };
}

const ATTRIBUTION_RANK: Record<AttributionFidelity, number> = { unknown: 0, inferred: 1, shared: 2, exact: 3 };

/**
 * The strongest attribution an action's evidence supports (registry agent.skill.evidence.fidelity):
 * exact or derived evidence any (a fallback sensor's `inferred`), inferred evidence `inferred`, and
 * evidence of `unknown` (or an unregistered) fidelity `unknown`: an observation of unknown
 * trustworthiness cannot say how strongly it is linked to a skill. A fidelity not given leaves the
 * claim alone: a host's native tool span (span.agent.action) carries none.
 */
function evidenceCeiling(e: ObservationEventRow): AttributionFidelity {
  const fallback = e.evidenceSource !== undefined && FALLBACK_SOURCES.has(e.evidenceSource);
  if (e.evidenceFidelity === undefined || e.evidenceFidelity === 'exact' || e.evidenceFidelity === 'derived') return fallback ? 'inferred' : 'exact';
  return e.evidenceFidelity === 'inferred' ? 'inferred' : 'unknown';
}

/**
 * An action's attribution (attribution()), lowered to what its evidence supports and to `ceiling`
 * (what the reader knows beyond the event, e.g. that it happened before the activation); a client
 * claim that was lowered is kept as the reported fidelity.
 */
function actionAttribution(e: ObservationEventRow, ids: readonly string[], ceiling: AttributionFidelity): { fidelity: AttributionFidelity; reported?: string } {
  const claimed = str(e.attributes as OtlpAttributes, 'agent.skill.attribution.fidelity');
  const fid = attribution(ids, claimed, { source: e.evidenceSource, fidelity: e.evidenceFidelity });
  const evidence = evidenceCeiling(e);
  const cap = ATTRIBUTION_RANK[evidence] < ATTRIBUTION_RANK[ceiling] ? evidence : ceiling;
  if (ATTRIBUTION_RANK[fid.fidelity] <= ATTRIBUTION_RANK[cap]) return fid;
  const reported = fid.reported ?? (claimed === fid.fidelity ? claimed : undefined);
  return { fidelity: cap, ...(reported ? { reported } : {}) };
}

/** The activation_actions row of an action event; `ceiling` bounds its attribution further (default: none). */
export function actionRow(e: ObservationEventRow, ceiling: AttributionFidelity = 'exact'): ActivationActionRow {
  const a = e.attributes as OtlpAttributes;
  const ids = linkedActivations(e);
  const fid = actionAttribution(e, ids, ceiling);
  const row: ActivationActionRow = {
    eventId: e.eventId,
    ...identity(e),
    time: e.time,
    source: e.signal === 'traces' ? 'span' : 'event',
    actionType: str(a, 'agent.action.type') ?? 'other',
    activationIds: ids,
    attributionFidelity: fid.fidelity,
    rawEventIds: [e.eventId],
    normalizerVersion: e.normalizerVersion,
  };
  put(row, 'mutating', bool(a, 'agent.action.mutating'));
  put(row, 'scope', str(a, 'agent.action.scope'));
  put(row, 'risk', str(a, 'agent.action.risk'));
  put(row, 'approvalState', str(a, 'agent.action.approval.state'));
  put(row, 'result', str(a, 'agent.action.result') ?? (e.result === 'error' ? 'error' : undefined));
  put(row, 'toolName', str(a, 'gen_ai.tool.name'));
  put(row, 'toolCallId', idAttr(a, 'gen_ai.tool.call.id'));
  put(row, 'errorType', e.errorType);
  put(row, 'reportedFidelity', fid.reported);
  put(row, 'evidenceSource', e.evidenceSource);
  put(row, 'evidenceFidelity', e.evidenceFidelity);
  return row;
}

const CHANGE_PREFIX = 'agent.change.';
const NOT_COUNTS = new Set(['agent.change.scope.baseline.count', 'agent.change.outside_initial_scope.count', 'agent.change.new_path.count']);

/**
 * A change summary's attribution: the client's agent.skill.attribution.fidelity claim, or without
 * one what its evidence fidelity supports (exact evidence: exact, else inferred), under the same
 * rules as actions: several activations share it, and fallback (filesystem/transcript) or inferred
 * evidence never yields exact (spec "Correlation keys": "never exact").
 */
function changeAttribution(e: ObservationEventRow, ids: readonly string[]): { fidelity: AttributionFidelity; reported?: string } {
  const claimed = str(e.attributes as OtlpAttributes, 'agent.skill.attribution.fidelity');
  const fallback = e.evidenceFidelity === 'exact' ? 'exact' : 'inferred';
  const out = attribution(ids, claimed ?? (ids.length ? fallback : undefined), { source: e.evidenceSource, fidelity: e.evidenceFidelity });
  // only a claim the client made is reported back, never the default this function chose
  if (claimed === undefined) delete out.reported;
  return out;
}

export function changeRow(e: ObservationEventRow): ChangeOutcomeRow {
  const a = e.attributes as OtlpAttributes;
  const ids = linkedActivations(e);
  const fid = changeAttribution(e, ids);
  const counts: Record<string, number> = {};
  for (const key of Object.keys(a).sort()) {
    if (!key.startsWith(CHANGE_PREFIX) || !key.endsWith('.count') || NOT_COUNTS.has(key)) continue;
    const v = num(a, key);
    if (v !== undefined) counts[key.slice(CHANGE_PREFIX.length, -'.count'.length)] = v;
  }
  const scope: ChangeOutcomeRow['scope'] = { outsideInitialScope: num(a, 'agent.change.outside_initial_scope.count') ?? null };
  put(scope, 'source', str(a, 'agent.change.scope.source'));
  put(scope, 'confidence', str(a, 'agent.change.scope.confidence'));
  put(scope, 'baselineCount', num(a, 'agent.change.scope.baseline.count'));
  put(scope, 'newPaths', num(a, 'agent.change.new_path.count'));
  const row: ChangeOutcomeRow = {
    eventId: e.eventId,
    ...identity(e),
    time: e.time,
    activationIds: ids,
    attributionFidelity: fid.fidelity,
    scope,
    counts,
    rawEventIds: [e.eventId],
    normalizerVersion: e.normalizerVersion,
  };
  put(row, 'boundary', str(a, 'agent.change.boundary'));
  put(row, 'checkpointId', str(a, 'git.ai.checkpoint.id'));
  put(row, 'worktreeDirty', bool(a, 'agent.change.worktree.dirty'));
  put(row, 'durationSeconds', num(a, 'agent.change.duration'));
  put(row, 'inputTokens', num(a, 'gen_ai.usage.input_tokens'));
  put(row, 'outputTokens', num(a, 'gen_ai.usage.output_tokens'));
  put(row, 'costUsd', num(a, 'agent.change.cost.usd'));
  put(row, 'reportedFidelity', fid.reported);
  put(row, 'evidenceSource', e.evidenceSource);
  put(row, 'evidenceFidelity', e.evidenceFidelity);
  return row;
}

/** The feedback kind of an event, or undefined when it is not a feedback/incident fact. */
/** The event names feedbackKind may give a kind to. */
export const FEEDBACK_EVENTS: ReadonlySet<string> = new Set(['agent.user.intervention', 'agent.skill.feedback', 'agent.skill.incident.reported', 'agent.skill.quarantine.changed', 'agent.skill.inventory.changed']);

export function feedbackKind(e: ObservationEventRow): FeedbackKind | undefined {
  switch (e.eventName) {
    case 'agent.user.intervention':
      return 'intervention';
    case 'agent.skill.feedback':
      return 'feedback';
    case 'agent.skill.incident.reported':
      return 'incident';
    case 'agent.skill.quarantine.changed':
      return 'quarantine';
    case 'agent.skill.inventory.changed': {
      const action = str(e.attributes as OtlpAttributes, 'agent.skill.inventory.action');
      return action === 'disabled' ? 'disable' : action === 'removed' ? 'uninstall' : undefined;
    }
    default:
      return undefined;
  }
}

export function feedbackRow(e: ObservationEventRow, kind: FeedbackKind): SkillFeedbackIncidentRow {
  const a = e.attributes as OtlpAttributes;
  const row: SkillFeedbackIncidentRow = { eventId: e.eventId, kind, ...identity(e), time: e.time, rawEventIds: [e.eventId], normalizerVersion: e.normalizerVersion };
  put(row, 'packageId', e.packageId);
  put(row, 'skillId', e.skillId);
  put(row, 'artifactVersion', e.artifactVersion);
  put(row, 'contentHash', e.contentHash);
  put(row, 'activationId', e.activationId);
  put(row, 'activationIds', e.activationIds);
  put(row, 'interventionType', str(a, 'agent.user.intervention.type'));
  put(row, 'reasonCode', e.reasonCode);
  put(row, 'reasonCodes', strList(a, 'agent.skill.reason.codes'));
  put(row, 'elapsedSeconds', num(a, 'agent.user.intervention.elapsed'));
  put(row, 'sentiment', str(a, 'agent.skill.feedback.sentiment'));
  put(row, 'incidentId', idAttr(a, 'agent.skill.incident.id'));
  put(row, 'incidentClass', str(a, 'agent.skill.incident.class'));
  put(row, 'severity', str(a, 'agent.skill.incident.severity'));
  put(row, 'resolution', str(a, 'agent.skill.incident.resolution'));
  put(row, 'actorType', str(a, 'agent.skill.actor.type'));
  put(row, 'quarantineAction', str(a, 'agent.skill.quarantine.action'));
  put(row, 'replacementId', str(a, 'agent.skill.replacement.id'));
  put(row, 'evidenceSource', e.evidenceSource);
  put(row, 'evidenceFidelity', e.evidenceFidelity);
  return row;
}

/** Events that are actions (activation_actions rows). */
export const ACTION_EVENTS: ReadonlySet<string> = new Set(['agent.action.completed', 'span.agent.action']);

/** The activation_actions row of an event, or undefined when the event is not an action. */
export function actionOf(e: ObservationEventRow): ActivationActionRow | undefined {
  return ACTION_EVENTS.has(e.eventName) ? actionRow(e) : undefined;
}

/** The change_outcomes row of an event, or undefined when the event is not a change summary. */
export function changeOf(e: ObservationEventRow): ChangeOutcomeRow | undefined {
  return e.eventName === 'agent.change.summary' ? changeRow(e) : undefined;
}

/** The skill_feedback_incidents row of an event, or undefined when the event is not a feedback/incident fact. */
export function feedbackOf(e: ObservationEventRow): SkillFeedbackIncidentRow | undefined {
  if (ACTION_EVENTS.has(e.eventName) || e.eventName === 'agent.change.summary') return undefined;
  const kind = feedbackKind(e);
  return kind ? feedbackRow(e, kind) : undefined;
}
