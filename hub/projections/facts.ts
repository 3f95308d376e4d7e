import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { bool, idAttr, num, str, strList } from '../normalize/values.js';
import type { ProjectionReader } from '../storage/telemetry-ports.js';
import type {
  ActivationActionRow, AttributionFidelity, ChangeOutcomeRow, FeedbackKind, GitAiCheckpointRow, GitAiOutcomeRow, ObservationEventRow, RowIdentity, SkillFeedbackIncidentRow,
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

/** The evidence every fact row keeps of its event (and the client's claim, when the hub lowered it). */
function putEvidence(row: { reportedFidelity?: string; evidenceSource?: string; evidenceFidelity?: string }, e: ObservationEventRow, reported?: string): void {
  put(row, 'reportedFidelity', reported);
  put(row, 'evidenceSource', e.evidenceSource);
  put(row, 'evidenceFidelity', e.evidenceFidelity);
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
  putEvidence(row, e, fid.reported);
  return row;
}

/** A change summary (change_outcomes row); one at a Git AI checkpoint names it by git.ai.checkpoint.id. */
export const CHANGE_SUMMARY = 'agent.change.summary';

/** The record of a Git AI checkpoint (its active set and correlation); outcomes and change summaries name it by id. */
export const GIT_AI_CHECKPOINT = 'git.ai.checkpoint.created';

/** Git AI records of line outcomes (git_ai_attribution_outcomes rows). */
export const GIT_AI_OUTCOME_EVENTS: ReadonlySet<string> = new Set([
  'git.ai.lines.accepted', 'git.ai.lines.overridden', 'git.ai.commit.attributed', 'git.ai.attribution.updated', 'git.ai.attribution.survived', 'git.ai.session.abandoned',
]);

/** The checkpoint a record names (git.ai.checkpoint.id), as stored in keys. */
export function checkpointIdOf(e: ObservationEventRow): string | undefined {
  return idAttr(e.attributes as OtlpAttributes, 'git.ai.checkpoint.id');
}

/** The git.ai.checkpoint.created record of the checkpoint an event names, on the event's device. */
export type CheckpointLookup = (e: ObservationEventRow) => ObservationEventRow | undefined;

/**
 * The checkpoint join through the checkpoint index (apply.ts): the earliest record of the checkpoint on
 * the event's device (activation ids in it are the device's), so the result does not depend on arrival
 * order, nor on how many other records name the checkpoint (the record is indexed apart from them).
 */
export function checkpointLookup(reader: Pick<ProjectionReader, 'getEvent' | 'checkpointRecord'>): CheckpointLookup {
  return (e) => {
    const id = checkpointIdOf(e);
    const item = id === undefined ? undefined : reader.checkpointRecord(e.accountId, e.deviceId, id);
    return item && reader.getEvent(e.accountId, item.eventId, e.deviceId);
  };
}

const STRENGTH: readonly AttributionFidelity[] = ['unknown', 'inferred', 'shared', 'exact'];
const weaker = (a: AttributionFidelity, b: AttributionFidelity): AttributionFidelity => (STRENGTH.indexOf(a) <= STRENGTH.indexOf(b) ? a : b);

/**
 * The most a git.ai.correlation.fidelity supports: only a checkpoint sidecar's exact active set can be
 * exact; session-level context is shared at best (spec 5A: "Session attributes must never be presented as
 * checkpoint-exact"); an unregistered value is unknown.
 */
function correlationCap(correlation: string | undefined): AttributionFidelity {
  if (correlation === undefined) return 'exact';
  return ({ checkpoint_exact: 'exact', session_shared: 'shared', inferred: 'inferred' } as Record<string, AttributionFidelity>)[correlation] ?? 'unknown';
}

/** How a change or outcome is tied to a Git AI checkpoint: the correlation and the active set its checkpoint recorded. */
interface GitAiLink {
  correlation?: string;
  recorded?: string[];
}

/** A checkpoint record's git.ai.correlation.fidelity (required by the registry: `unknown` when not sent). */
const correlationOf = (checkpoint: ObservationEventRow): string => str(checkpoint.attributes as OtlpAttributes, 'git.ai.correlation.fidelity') ?? 'unknown';

/** The activations a change summary or outcome is credited to: those it names and those its checkpoint recorded. */
const creditedActivations = (e: ObservationEventRow, link: GitAiLink): string[] => [...new Set([...linkedActivations(e), ...(link.recorded ?? [])])].sort();

/**
 * The link of an event: the weaker of its own git.ai.correlation.fidelity and its checkpoint record's (a
 * record's claim cannot outrank what the checkpoint itself says), and the active set that record lists.
 */
function gitAiLink(e: ObservationEventRow, checkpoint: ObservationEventRow | undefined): GitAiLink {
  const own = str(e.attributes as OtlpAttributes, 'git.ai.correlation.fidelity');
  if (!checkpoint) return { correlation: own };
  const recorded = correlationOf(checkpoint);
  const correlation = own !== undefined && weaker(correlationCap(own), correlationCap(recorded)) === correlationCap(own) ? own : recorded;
  return { correlation, recorded: linkedActivations(checkpoint) };
}

/**
 * The attribution of a change summary or Git AI outcome: the client's agent.skill.attribution.fidelity
 * claim, or without one what its evidence fidelity supports (exact evidence: exact, else inferred), under
 * the same rules as actions (several activations share it; fallback or inferred evidence never yields
 * exact). Evidence fidelity says the counts are accurate, not that the skill link is: the link is never
 * more exact than its Git AI correlation, and never exclusive when the checkpoint recorded several active
 * activations (spec decision 19). Only a claim the client made is reported back.
 */
function gitAiAttribution(e: ObservationEventRow, ids: readonly string[], link: GitAiLink): { fidelity: AttributionFidelity; reported?: string } {
  const claimed = str(e.attributes as OtlpAttributes, 'agent.skill.attribution.fidelity');
  const fallback = e.evidenceFidelity === 'exact' ? 'exact' : 'inferred';
  const base = attribution(ids, claimed ?? (ids.length ? fallback : undefined), { source: e.evidenceSource, fidelity: e.evidenceFidelity });
  let fidelity = weaker(base.fidelity, correlationCap(link.correlation));
  if ((link.recorded?.length ?? 0) > 1) fidelity = weaker(fidelity, 'shared');
  if (claimed === undefined) return { fidelity };
  const reported = base.reported ?? (fidelity !== base.fidelity ? claimed : undefined);
  return reported === undefined ? { fidelity } : { fidelity, reported };
}

/** `prefix<name>.count` attributes of an event as <name> -> value, sorted, skipping the keys in `skip`. */
function countsOf(a: OtlpAttributes, prefix: string, skip: ReadonlySet<string> = new Set()): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of Object.keys(a).sort()) {
    if (!key.startsWith(prefix) || !key.endsWith('.count') || skip.has(key)) continue;
    const v = num(a, key);
    if (v !== undefined) counts[key.slice(prefix.length, -'.count'.length)] = v;
  }
  return counts;
}

const CHANGE_PREFIX = 'agent.change.';
const NOT_COUNTS = new Set(['agent.change.scope.baseline.count', 'agent.change.outside_initial_scope.count', 'agent.change.new_path.count']);

/**
 * A change summary's row; one at a Git AI checkpoint is read with the checkpoint's record
 * (`checkpoint`) and credited, as an outcome is, to the activations it names and those the record lists.
 */
export function changeRow(e: ObservationEventRow, checkpoint?: ObservationEventRow): ChangeOutcomeRow {
  const a = e.attributes as OtlpAttributes;
  const link = gitAiLink(e, checkpoint);
  const ids = creditedActivations(e, link);
  const fid = gitAiAttribution(e, ids, link);
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
    counts: countsOf(a, CHANGE_PREFIX, NOT_COUNTS),
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
  put(row, 'correlationFidelity', link.correlation);
  put(row, 'checkpointActivationIds', link.recorded);
  putEvidence(row, e);
  return row;
}

/** The git_ai_checkpoints row of a git.ai.checkpoint.created record. */
export function gitAiCheckpointRow(e: ObservationEventRow): GitAiCheckpointRow {
  const a = e.attributes as OtlpAttributes;
  const row: GitAiCheckpointRow = {
    eventId: e.eventId,
    ...identity(e),
    time: e.time,
    checkpointId: str(a, 'git.ai.checkpoint.id') ?? '',
    correlationFidelity: correlationOf(e),
    activationIds: linkedActivations(e),
    rawEventIds: [e.eventId],
    normalizerVersion: e.normalizerVersion,
  };
  put(row, 'gitAiSessionId', str(a, 'git.ai.session.id'));
  put(row, 'attestationKey', str(a, 'git.ai.attestation.key'));
  put(row, 'traceId', e.traceId);
  put(row, 'spanId', e.spanId);
  put(row, 'toolCallId', idAttr(a, 'gen_ai.tool.call.id'));
  put(row, 'gitAiVersion', str(a, 'git.ai.version'));
  put(row, 'gitAiSchemaVersion', str(a, 'git.ai.schema.version'));
  put(row, 'gitAiSource', str(a, 'git.ai.source'));
  putEvidence(row, e);
  return row;
}

/**
 * The git_ai_attribution_outcomes row of a Git AI outcome record, joined to its checkpoint's record
 * (`checkpoint`): credited to the activations it names and those the checkpoint recorded.
 */
export function gitAiOutcomeRow(e: ObservationEventRow, checkpoint?: ObservationEventRow): GitAiOutcomeRow {
  const a = e.attributes as OtlpAttributes;
  const link = gitAiLink(e, checkpoint);
  const ids = creditedActivations(e, link);
  const fid = gitAiAttribution(e, ids, link);
  const row: GitAiOutcomeRow = {
    eventId: e.eventId,
    ...identity(e),
    time: e.time,
    eventName: e.eventName,
    lines: countsOf(a, 'git.ai.lines.'),
    activationIds: ids,
    attributionFidelity: fid.fidelity,
    rawEventIds: [e.eventId],
    normalizerVersion: e.normalizerVersion,
  };
  put(row, 'checkpointId', str(a, 'git.ai.checkpoint.id'));
  put(row, 'gitAiSessionId', str(a, 'git.ai.session.id'));
  put(row, 'commitSha', str(a, 'git.ai.commit.sha'));
  put(row, 'originalCommitSha', str(a, 'git.ai.commit.original_sha'));
  put(row, 'rewriteOperation', str(a, 'git.ai.rewrite.operation'));
  put(row, 'survivalWindowDays', num(a, 'git.ai.survival.window.days'));
  put(row, 'correlationFidelity', link.correlation);
  putEvidence(row, e, fid.reported);
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
  putEvidence(row, e);
  return row;
}

/** Events that are actions (activation_actions rows). */
export const ACTION_EVENTS: ReadonlySet<string> = new Set(['agent.action.completed', 'span.agent.action']);

/** The activation_actions row of an event, or undefined when the event is not an action. */
export function actionOf(e: ObservationEventRow): ActivationActionRow | undefined {
  return ACTION_EVENTS.has(e.eventName) ? actionRow(e) : undefined;
}

/** The change_outcomes row of an event (joined to its Git AI checkpoint through `checkpointOf`), or undefined when the event is not a change summary. */
export function changeOf(e: ObservationEventRow, checkpointOf?: CheckpointLookup): ChangeOutcomeRow | undefined {
  return e.eventName === CHANGE_SUMMARY ? changeRow(e, checkpointOf?.(e)) : undefined;
}

/** The git_ai_checkpoints row of an event, or undefined when the event is not a checkpoint record. */
export function gitAiCheckpointOf(e: ObservationEventRow): GitAiCheckpointRow | undefined {
  return e.eventName === GIT_AI_CHECKPOINT ? gitAiCheckpointRow(e) : undefined;
}

/** The git_ai_attribution_outcomes row of an event (joined to its checkpoint through `checkpointOf`), or undefined when the event is not a Git AI outcome. */
export function gitAiOutcomeOf(e: ObservationEventRow, checkpointOf?: CheckpointLookup): GitAiOutcomeRow | undefined {
  return GIT_AI_OUTCOME_EVENTS.has(e.eventName) ? gitAiOutcomeRow(e, checkpointOf?.(e)) : undefined;
}

/** The skill_feedback_incidents row of an event, or undefined when the event is not a feedback/incident fact. */
export function feedbackOf(e: ObservationEventRow): SkillFeedbackIncidentRow | undefined {
  if (ACTION_EVENTS.has(e.eventName) || e.eventName === CHANGE_SUMMARY) return undefined;
  const kind = feedbackKind(e);
  return kind ? feedbackRow(e, kind) : undefined;
}
