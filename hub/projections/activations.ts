import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { bool, num, str } from '../normalize/values.js';
import { isoNanos, msBetween, nanosOfIso } from '../normalize/values.js';
import type { LoadCompleteness, ObservationEventRow, SkillActivationRow } from './rows.js';

/**
 * skill_activations: folds the events of one activation id (selection, load start, load result,
 * activation span, deactivation) into one row. Pure. Identity fields keep the first non-empty
 * value seen; phase timestamps keep the earliest; the load result and duration are derived from
 * the timestamps, so the row is the same whichever event arrives first.
 */

export type ActivationPhase = 'selected' | 'load_started' | 'loaded' | 'load_failed' | 'deactivated' | 'span' | 'other';

export interface ActivationInput {
  event: ObservationEventRow;
  /** end of an activation span, and whether it ended in error */
  span?: { endNanos: string; failed: boolean };
}

const PHASE_BY_EVENT: Record<string, ActivationPhase> = {
  'agent.skill.selected': 'selected',
  'agent.skill.load_started': 'load_started',
  'agent.skill.loaded': 'loaded',
  'agent.skill.load_failed': 'load_failed',
  'span.agent.skill.activation': 'span',
};

/** The activation phase an event reports; `other` for events that only reference the activation. */
export function activationPhase(row: ObservationEventRow): ActivationPhase {
  return PHASE_BY_EVENT[row.eventName] ?? (row.phase === 'deactivated' ? 'deactivated' : 'other');
}

const FIDELITY_RANK: Record<string, number> = { exact: 3, derived: 2, inferred: 1, unknown: 0 };

function weakest(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return (FIDELITY_RANK[b] ?? 0) < (FIDELITY_RANK[a] ?? 0) ? b : a;
}

const earliest = (a: string | undefined, b: string | undefined) => (a === undefined || (b !== undefined && b < a) ? b : a);
const latest = (a: string | undefined, b: string | undefined) => (a === undefined || (b !== undefined && b > a) ? b : a);

function loadOf(r: SkillActivationRow): LoadCompleteness {
  if (r.loadFailedAt) return 'failed';
  if (r.loadedAt) return r.instructions?.truncated ? 'truncated' : 'complete';
  if (r.selectedAt || r.loadStartedAt) return 'pending';
  return 'unknown';
}

/** Sets `row[key]` when unset and `value` is defined (first non-empty value wins). */
function fill<T extends object, K extends keyof T>(row: T, key: K, value: T[K] | undefined): void {
  if (row[key] === undefined && value !== undefined) row[key] = value;
}

/** What the rollups need of an activation row before an event changed it. */
export type ActivationSnapshot = Pick<SkillActivationRow, 'firstSeen' | 'accountId' | 'packageId' | 'skillId' | 'artifactVersion' | 'hostName' | 'serviceName' | 'triggerType' | 'loadedAt' | 'loadFailedAt' | 'sessionId'> & { truncated?: boolean };

export function snapshotActivation(r: SkillActivationRow): ActivationSnapshot {
  return {
    firstSeen: r.firstSeen, accountId: r.accountId, packageId: r.packageId, skillId: r.skillId, artifactVersion: r.artifactVersion, hostName: r.hostName,
    serviceName: r.serviceName, triggerType: r.triggerType, loadedAt: r.loadedAt, loadFailedAt: r.loadFailedAt, sessionId: r.sessionId, truncated: r.instructions?.truncated,
  };
}

/**
 * Folds one event into an activation row: updates `row` in place (it belongs to the caller's
 * batch), or creates the row when there is none yet.
 */
export function mergeActivation(row: SkillActivationRow | undefined, input: ActivationInput, coactive: string[]): SkillActivationRow {
  const e = input.event;
  const a = e.attributes as OtlpAttributes;
  const phase = activationPhase(e);
  const r: SkillActivationRow = row
    ? row
    : {
        activationId: e.activationId!,
        accountId: e.accountId,
        deviceId: e.deviceId,
        repositoryResolution: e.repositoryResolution,
        ...(e.repositoryId ? { repositoryId: e.repositoryId } : {}),
        load: 'unknown',
        activeSet: [],
        firstSeen: e.time,
        lastSeen: e.time,
        rawEventIds: [],
        normalizerVersion: e.normalizerVersion,
      };
  if (r.repositoryResolution !== 'resolved' && e.repositoryResolution === 'resolved') {
    r.repositoryResolution = 'resolved';
    r.repositoryId = e.repositoryId;
  }
  fill(r, 'sessionId', e.sessionId);
  fill(r, 'turnId', e.turnId);
  fill(r, 'conversationId', e.conversationId);
  fill(r, 'hostName', e.hostName);
  fill(r, 'serviceName', e.serviceName);
  fill(r, 'agentName', e.agentName);
  fill(r, 'model', e.model);
  fill(r, 'packageId', e.packageId);
  fill(r, 'skillId', e.skillId);
  fill(r, 'skillName', e.skillName);
  fill(r, 'artifactVersion', e.artifactVersion);
  fill(r, 'artifactHash', e.artifactHash);
  fill(r, 'contentHash', e.contentHash);
  fill(r, 'sourceType', str(a, 'agent.skill.source.type'));
  fill(r, 'triggerType', e.triggerType);
  fill(r, 'triggerSource', str(a, 'agent.skill.trigger.source'));
  fill(r, 'selectorType', str(a, 'agent.skill.selector.type'));
  if (phase === 'selected') fill(r, 'selectionReason', e.reasonCode);
  fill(r, 'autonomyMode', str(a, 'agent.runtime.autonomy.mode'));
  fill(r, 'approvalMode', str(a, 'agent.runtime.approval.mode'));
  fill(r, 'sandboxMode', str(a, 'agent.runtime.sandbox.mode'));
  fill(r, 'networkMode', str(a, 'agent.runtime.network.mode'));
  fill(r, 'evidenceSource', e.evidenceSource);
  r.evidenceFidelity = weakest(r.evidenceFidelity, e.evidenceFidelity);

  const failed = phase === 'load_failed' || (phase === 'span' && input.span?.failed === true);
  if (phase === 'selected' || phase === 'span') r.selectedAt = earliest(r.selectedAt, e.time);
  if (phase === 'load_started') r.loadStartedAt = earliest(r.loadStartedAt, e.time);
  const resultAt = phase === 'span' ? (input.span && input.span.endNanos !== '0' ? isoNanos(input.span.endNanos) : undefined) : e.time;
  if (phase === 'loaded' || (phase === 'span' && !failed)) r.loadedAt = earliest(r.loadedAt, resultAt);
  if (failed) r.loadFailedAt = earliest(r.loadFailedAt, resultAt);
  if (phase === 'deactivated') r.deactivatedAt = earliest(r.deactivatedAt, e.time);

  if (phase === 'loaded' || phase === 'load_started' || phase === 'span') {
    const ins: NonNullable<SkillActivationRow['instructions']> = r.instructions ?? {};
    fill(ins, 'fileCount', num(a, 'agent.skill.instructions.file_count'));
    fill(ins, 'byteCount', num(a, 'agent.skill.instructions.byte_count'));
    fill(ins, 'tokenCount', num(a, 'agent.skill.instructions.token_count'));
    fill(ins, 'truncated', bool(a, 'agent.skill.instructions.truncated'));
    fill(ins, 'truncationReason', str(a, 'agent.skill.instructions.truncation_reason'));
    fill(ins, 'expectedFileCount', num(a, 'agent.skill.instructions.expected_file_count'));
    fill(ins, 'expectedByteCount', num(a, 'agent.skill.instructions.expected_byte_count'));
    for (const _ in ins) {
      r.instructions = ins;
      break;
    }
  }
  if (failed) {
    const err: NonNullable<SkillActivationRow['error']> = r.error ?? {};
    fill(err, 'type', e.errorType);
    fill(err, 'stage', str(a, 'agent.skill.error.stage'));
    fill(err, 'reasonCode', e.reasonCode);
    fill(err, 'missingFiles', num(a, 'agent.skill.load.missing_file_count'));
    fill(err, 'invalidFiles', num(a, 'agent.skill.load.invalid_file_count'));
    for (const _ in err) {
      r.error = err;
      break;
    }
  }
  const reported = num(a, 'agent.skill.load.duration');
  const resultTime = r.loadFailedAt ?? r.loadedAt;
  if (r.selectedAt && resultTime && resultTime >= r.selectedAt) {
    r.loadDurationMs = msBetween(nanosOfIso(r.selectedAt), nanosOfIso(resultTime));
    r.loadDurationSource = 'timestamps';
  } else if (reported !== undefined && (phase === 'loaded' || failed) && r.loadDurationSource !== 'timestamps') {
    r.loadDurationMs = Math.round(reported * 1e6) / 1e3;
    r.loadDurationSource = 'reported';
  }
  r.load = loadOf(r);
  r.activeSet = coactive.length ? coactive.filter((id) => id !== r.activationId).sort() : r.activeSet.length === 0 ? r.activeSet : [];
  r.firstSeen = earliest(r.firstSeen, e.time)!;
  r.lastSeen = latest(r.lastSeen, e.time)!;
  if (!r.rawEventIds.includes(e.eventId)) {
    r.rawEventIds.push(e.eventId);
    r.rawEventIds.sort();
  }
  return r;
}
