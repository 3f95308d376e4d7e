import type { OtlpAttributes } from '../../core/telemetry/otlp/index.js';
import { bool, num, str } from '../normalize/values.js';
import { isoNanos, msBetween, nanosOfIso } from '../normalize/values.js';
import type { ActivationResult, LoadCompleteness, ObservationEventRow, SkillActivationRow } from './rows.js';

/**
 * skill_activations: folds the events of one activation (account, device, activation id:
 * selection, load start, load result, activation span, deactivation) into one row. Pure. Phase
 * timestamps keep the earliest; every other merged field keeps the value of the event the field's
 * authoritative phase prefers (the load result for what was loaded, the selection for how and
 * where it was selected), then the earliest, then the smallest event id, and records that choice in
 * `fieldSources`; the evidence fidelity is the weakest seen, with the source of the event it came
 * from. So the row is the same whichever event arrives first.
 */

export type ActivationPhase = 'selected' | 'load_started' | 'loaded' | 'load_failed' | 'deactivated' | 'span' | 'other';

/** The end of an activation span and its agent.skill.result (see normalize-batch.ts `spanResult`). */
export interface ActivationSpanEnd {
  endNanos: string;
  result: ActivationResult;
}

export interface ActivationInput {
  event: ObservationEventRow;
  span?: ActivationSpanEnd;
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

const earliest = (a: string | undefined, b: string | undefined) => (a === undefined || (b !== undefined && b < a) ? b : a);
const latest = (a: string | undefined, b: string | undefined) => (a === undefined || (b !== undefined && b > a) ? b : a);

function loadOf(r: SkillActivationRow): LoadCompleteness {
  if (r.loadFailedAt) return 'failed';
  if (r.loadedAt) return r.instructions?.truncated ? 'truncated' : 'complete';
  if (r.loadEnded?.blocked) return 'blocked';
  if (r.loadEnded?.cancelled) return 'cancelled';
  if (r.loadEnded?.unknown) return 'unknown';
  if (r.selectedAt || r.loadStartedAt) return 'pending';
  return 'unknown';
}

/**
 * Which phase is authoritative for a field, most preferred first: where and how the activation
 * was selected comes from its selection; what was loaded (skill, release, instructions) from its
 * load result; why it failed from its failure.
 */
const PREFERENCE: Record<'selection' | 'load' | 'failure', Record<ActivationPhase, number>> = {
  selection: { selected: 0, span: 1, load_started: 2, loaded: 3, load_failed: 4, deactivated: 5, other: 6 },
  load: { loaded: 0, span: 1, load_failed: 2, load_started: 3, selected: 4, deactivated: 5, other: 6 },
  failure: { load_failed: 0, span: 1, loaded: 2, load_started: 3, selected: 4, deactivated: 5, other: 6 },
};

/** The preference key of an event for a field (lower wins): the phase's rank, then the time, then the id. */
const prefer = (rank: number | string, e: ObservationEventRow) => `${rank}|${e.time}|${e.eventId}`;

/**
 * Sets `target[key]` to `value` when the event (preference key `pref`) is preferred over the one
 * that supplied the current value, and records it in `r.fieldSources[name]`.
 */
function pick<T extends object, K extends keyof T>(r: SkillActivationRow, target: T, key: K, name: string, value: T[K] | undefined, pref: string): void {
  if (value === undefined) return;
  const sources = (r.fieldSources ??= {});
  const current = sources[name];
  if (current !== undefined && target[key] !== undefined && current <= pref) return;
  target[key] = value;
  sources[name] = pref;
}

/** What the rollups need of an activation row before an event changed it. */
export type ActivationSnapshot = Pick<SkillActivationRow, 'firstSeen' | 'accountId' | 'deviceId' | 'packageId' | 'skillId' | 'artifactVersion' | 'artifactHash' | 'hostName' | 'serviceName' | 'triggerType' | 'loadedAt' | 'loadFailedAt' | 'sessionId' | 'evidenceFidelity'> & { truncated?: boolean };

export function snapshotActivation(r: SkillActivationRow): ActivationSnapshot {
  return {
    firstSeen: r.firstSeen, accountId: r.accountId, deviceId: r.deviceId, packageId: r.packageId, skillId: r.skillId, artifactVersion: r.artifactVersion, artifactHash: r.artifactHash, hostName: r.hostName,
    serviceName: r.serviceName, triggerType: r.triggerType, loadedAt: r.loadedAt, loadFailedAt: r.loadFailedAt, sessionId: r.sessionId, evidenceFidelity: r.evidenceFidelity, truncated: r.instructions?.truncated,
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
  const sel = prefer(PREFERENCE.selection[phase], e);
  const load = prefer(PREFERENCE.load[phase], e);
  // a resolved repository is preferred over none; among resolved ones, the selection's
  const repo = `${e.repositoryResolution === 'resolved' ? 0 : 1}${sel}`;
  const repoSource = r.fieldSources?.repository;
  if (repoSource === undefined || repo < repoSource) {
    r.repositoryResolution = e.repositoryResolution;
    if (e.repositoryId) r.repositoryId = e.repositoryId;
    else delete r.repositoryId;
    (r.fieldSources ??= {}).repository = repo;
  }
  pick(r, r, 'sessionId', 'sessionId', e.sessionId, sel);
  pick(r, r, 'turnId', 'turnId', e.turnId, sel);
  pick(r, r, 'conversationId', 'conversationId', e.conversationId, sel);
  pick(r, r, 'hostName', 'hostName', e.hostName, sel);
  pick(r, r, 'serviceName', 'serviceName', e.serviceName, sel);
  pick(r, r, 'agentName', 'agentName', e.agentName, sel);
  pick(r, r, 'model', 'model', e.model, sel);
  pick(r, r, 'packageId', 'packageId', e.packageId, load);
  pick(r, r, 'skillId', 'skillId', e.skillId, load);
  pick(r, r, 'skillName', 'skillName', e.skillName, load);
  // preferred like the skill id (the load result's), which it explains
  pick(r, r, 'libraryResolution', 'libraryResolution', str(a, 'agent.skill.library.resolution'), load);
  pick(r, r, 'artifactVersion', 'artifactVersion', e.artifactVersion, load);
  pick(r, r, 'artifactHash', 'artifactHash', e.artifactHash, load);
  pick(r, r, 'contentHash', 'contentHash', e.contentHash, load);
  pick(r, r, 'sourceType', 'sourceType', str(a, 'agent.skill.source.type'), load);
  pick(r, r, 'triggerType', 'triggerType', e.triggerType, sel);
  pick(r, r, 'triggerSource', 'triggerSource', str(a, 'agent.skill.trigger.source'), sel);
  pick(r, r, 'selectorType', 'selectorType', str(a, 'agent.skill.selector.type'), sel);
  if (phase === 'selected') pick(r, r, 'selectionReason', 'selectionReason', e.reasonCode, sel);
  pick(r, r, 'autonomyMode', 'autonomyMode', str(a, 'agent.runtime.autonomy.mode'), sel);
  pick(r, r, 'approvalMode', 'approvalMode', str(a, 'agent.runtime.approval.mode'), sel);
  pick(r, r, 'sandboxMode', 'sandboxMode', str(a, 'agent.runtime.sandbox.mode'), sel);
  pick(r, r, 'networkMode', 'networkMode', str(a, 'agent.runtime.network.mode'), sel);
  // the weakest fidelity seen, and the source of the event it came from (never a source paired
  // with another event's fidelity)
  const weakness = e.evidenceFidelity === undefined ? 9 : (FIDELITY_RANK[e.evidenceFidelity] ?? 0);
  pick(r, r, 'evidenceFidelity', 'evidenceFidelity', e.evidenceFidelity, prefer(`${weakness}${PREFERENCE.selection[phase]}`, e));
  pick(r, r, 'evidenceSource', 'evidenceSource', e.evidenceSource, prefer(`${weakness}${PREFERENCE.selection[phase]}`, e));

  const spanResult = phase === 'span' ? input.span?.result : undefined;
  // a load_failed event reporting a block or a cancellation (agent.skill.result) ends the load as
  // an activation span with that result does: neither loaded nor failed, whichever of the two arrived
  const stopped = phase === 'load_failed' && (e.result === 'blocked' || e.result === 'cancelled') ? e.result : undefined;
  const failed = (phase === 'load_failed' && !stopped) || spanResult === 'error';
  const ended = stopped ?? (spanResult === 'blocked' || spanResult === 'cancelled' || spanResult === 'unknown' ? spanResult : undefined);
  if (phase === 'selected' || phase === 'span') r.selectedAt = earliest(r.selectedAt, e.time);
  if (phase === 'load_started') r.loadStartedAt = earliest(r.loadStartedAt, e.time);
  const resultAt = phase === 'span' ? (input.span && input.span.endNanos !== '0' ? isoNanos(input.span.endNanos) : undefined) : e.time;
  if (phase === 'loaded' || spanResult === 'ok') r.loadedAt = earliest(r.loadedAt, resultAt);
  if (failed) r.loadFailedAt = earliest(r.loadFailedAt, resultAt);
  if (ended && resultAt) {
    const at = (r.loadEnded ??= {});
    at[ended] = earliest(at[ended], resultAt);
  }
  if (phase === 'deactivated') r.deactivatedAt = earliest(r.deactivatedAt, e.time);

  if (phase === 'loaded' || phase === 'load_started' || phase === 'span') {
    const ins: NonNullable<SkillActivationRow['instructions']> = r.instructions ?? {};
    pick(r, ins, 'fileCount', 'instructions.fileCount', num(a, 'agent.skill.instructions.file_count'), load);
    pick(r, ins, 'byteCount', 'instructions.byteCount', num(a, 'agent.skill.instructions.byte_count'), load);
    pick(r, ins, 'tokenCount', 'instructions.tokenCount', num(a, 'agent.skill.instructions.token_count'), load);
    pick(r, ins, 'truncated', 'instructions.truncated', bool(a, 'agent.skill.instructions.truncated'), load);
    pick(r, ins, 'truncationReason', 'instructions.truncationReason', str(a, 'agent.skill.instructions.truncation_reason'), load);
    pick(r, ins, 'expectedFileCount', 'instructions.expectedFileCount', num(a, 'agent.skill.instructions.expected_file_count'), load);
    pick(r, ins, 'expectedByteCount', 'instructions.expectedByteCount', num(a, 'agent.skill.instructions.expected_byte_count'), load);
    for (const _ in ins) {
      r.instructions = ins;
      break;
    }
  }
  // why it did not load: a failure's error, or what a block or cancellation reported (the same from the event or the span)
  if (failed || (ended !== undefined && ended !== 'unknown')) {
    const fail = prefer(PREFERENCE.failure[phase], e);
    const err: NonNullable<SkillActivationRow['error']> = r.error ?? {};
    pick(r, err, 'type', 'error.type', e.errorType, fail);
    pick(r, err, 'stage', 'error.stage', str(a, 'agent.skill.error.stage'), fail);
    pick(r, err, 'reasonCode', 'error.reasonCode', e.reasonCode, fail);
    pick(r, err, 'missingFiles', 'error.missingFiles', num(a, 'agent.skill.load.missing_file_count'), fail);
    pick(r, err, 'invalidFiles', 'error.invalidFiles', num(a, 'agent.skill.load.invalid_file_count'), fail);
    for (const _ in err) {
      r.error = err;
      break;
    }
  }
  const reported = num(a, 'agent.skill.load.duration');
  const resultTime = r.loadFailedAt ?? r.loadedAt ?? r.loadEnded?.blocked ?? r.loadEnded?.cancelled ?? r.loadEnded?.unknown;
  if (r.selectedAt && resultTime && resultTime >= r.selectedAt) {
    r.loadDurationMs = msBetween(nanosOfIso(r.selectedAt), nanosOfIso(resultTime));
    r.loadDurationSource = 'timestamps';
    if (r.fieldSources) delete r.fieldSources.loadDurationMs;
  } else if (reported !== undefined && (phase === 'loaded' || phase === 'load_failed' || spanResult === 'error') && r.loadDurationSource !== 'timestamps') {
    pick(r, r, 'loadDurationMs', 'loadDurationMs', Math.round(reported * 1e6) / 1e3, load);
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
