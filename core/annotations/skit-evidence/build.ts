import { SfError } from '../../errors/index.js';
import { EVIDENCE_FIDELITIES, EVIDENCE_SOURCES, isOneOf } from '../enums.js';
import { isIsoTimestamp } from '../template/codecs-text.js';
import { expectedInstallMatch, HASH, SKILL_ID, SKIT_ID } from './identity.js';
import type { BuildEvidenceOptions, EvidenceActive, EvidenceRelease, EvidenceSkill, SkillObservation, SkitEvidenceFields, SkitInstallation } from './types.js';

const FIDELITY_RANK = new Map(EVIDENCE_FIDELITIES.map((f, i) => [f, i]));

const refuse = (message: string, hint: string, pointer?: string): never => {
  throw new SfError('SF_E_ANNOTATION', message, { hint, location: pointer ? { pointer } : undefined });
};

/**
 * Builds the `FORGE:SKIT_EVIDENCE` fields from plain data: the installed releases (from the local
 * library) and, when the telemetry layer has them, activation observations. Pure: the same input
 * gives the same output (pass `recorded` for a fixed timestamp).
 *
 * - Releases and skills are de-duplicated (the same release installed for several hosts is one row)
 *   and sorted; a skill enabled in any installation counts as enabled.
 * - `observations` undefined means "not recorded" (`active: null`); [] means "observed, none active".
 * - Observations are grouped by (skill, content hash, fidelity, source) and their activations summed;
 *   fidelity is never merged, so a row never claims more certainty than its evidence.
 */
export function buildSkitEvidence(installations: readonly SkitInstallation[], observations?: readonly SkillObservation[], options: BuildEvidenceOptions = {}): SkitEvidenceFields {
  const releases = new Map<string, EvidenceRelease>();
  const skills = new Map<string, EvidenceSkill>();
  installations.forEach((inst, i) => {
    const at = `installations[${i}]`;
    if (!SKIT_ID.test(inst?.skitId ?? '')) refuse(`${at}.skitId "${String(inst?.skitId)}" is not owner/name`, 'pass the SKIT id, e.g. acme/review-kit', at);
    if (typeof inst.version !== 'string' || !inst.version.trim() || /[\s|]/.test(inst.version)) refuse(`${at}.version is missing or contains spaces`, 'pass the release version, e.g. 1.2.0', at);
    if (!HASH.test(inst.bundleHash ?? '')) refuse(`${at}.bundleHash is not sha256:<64 hex>`, 'pass the release bundle hash', at);
    const key = `${inst.skitId}@${inst.version}`;
    const prior = releases.get(key);
    if (prior && prior.bundleHash !== inst.bundleHash) {
      refuse(`${inst.skitId} ${inst.version} is installed twice with different bundle hashes`, 'run `sf skit doctor`: a release version must have one bundle hash', at);
    }
    releases.set(key, { skit: inst.skitId, version: inst.version, bundleHash: inst.bundleHash });
    (inst.skills ?? []).forEach((s, j) => {
      const sat = `${at}.skills[${j}]`;
      if (!SKILL_ID.test(s?.id ?? '') || !s.id.startsWith(`${inst.skitId}:`)) refuse(`${sat}.id "${String(s?.id)}" is not ${inst.skitId}:<skill>`, 'pass contained skill ids as owner/name:skill', sat);
      if (!HASH.test(s.contentHash ?? '')) refuse(`${sat}.contentHash is not sha256:<64 hex>`, 'pass the skill content hash', sat);
      const skey = `${s.id}@${inst.version}@${s.contentHash}`;
      const enabled = s.enabled === true || skills.get(skey)?.enabled === 'yes';
      skills.set(skey, { skill: s.id, version: inst.version, contentHash: s.contentHash, enabled: enabled ? 'yes' : 'no' });
    });
  });
  const recorded = options.recorded ?? new Date().toISOString();
  if (!isIsoTimestamp(recorded)) refuse(`recorded "${recorded}" is not an ISO 8601 timestamp`, 'pass e.g. 2026-01-15T09:30:00Z');
  const skillRows = [...skills.values()].sort((a, b) => cmp(a.skill, b.skill) || cmp(a.version, b.version) || cmp(a.contentHash, b.contentHash));
  const fields: SkitEvidenceFields = {
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.host ? { host: options.host } : {}),
    recorded,
    releases: [...releases.values()].sort((a, b) => cmp(a.skit, b.skit) || cmp(a.version, b.version)),
    skills: skillRows,
    active: observations === undefined ? null : groupObservations(observations, skillRows),
  };
  return fields;
}

function groupObservations(observations: readonly SkillObservation[], installed: EvidenceSkill[]): EvidenceActive[] {
  const groups = new Map<string, EvidenceActive>();
  observations.forEach((o, i) => {
    const at = `observations[${i}]`;
    if (!SKILL_ID.test(o?.skillId ?? '')) refuse(`${at}.skillId "${String(o?.skillId)}" is not owner/name:skill`, 'pass the contained skill id', at);
    if (o.contentHash !== undefined && !HASH.test(o.contentHash)) refuse(`${at}.contentHash is not sha256:<64 hex>`, 'pass the observed content hash or leave it out', at);
    if (!isOneOf(EVIDENCE_FIDELITIES, o.fidelity)) refuse(`${at}.fidelity "${String(o.fidelity)}" is not one of ${EVIDENCE_FIDELITIES.join(', ')}`, 'pass the evidence fidelity', at);
    if (o.source !== undefined && !isOneOf(EVIDENCE_SOURCES, o.source)) refuse(`${at}.source "${String(o.source)}" is not one of ${EVIDENCE_SOURCES.join(', ')}`, 'pass the evidence source or leave it out', at);
    const count = o.activations ?? 1;
    if (!Number.isSafeInteger(count) || count < 0) refuse(`${at}.activations must be a whole number`, 'pass a count', at);
    const key = [o.skillId, o.contentHash ?? '', o.fidelity, o.source ?? ''].join('\u0000');
    const g = groups.get(key);
    if (g) g.activations = (g.activations ?? 0) + count;
    else {
      groups.set(key, {
        skill: o.skillId,
        ...(o.contentHash ? { contentHash: o.contentHash } : {}),
        fidelity: o.fidelity,
        ...(o.source ? { source: o.source } : {}),
        activations: count,
        installMatch: expectedInstallMatch(installed, o.skillId, o.contentHash),
      });
    }
  });
  return [...groups.values()].sort(
    (a, b) => cmp(a.skill, b.skill) || cmp(a.contentHash ?? '', b.contentHash ?? '') || (FIDELITY_RANK.get(a.fidelity) ?? 9) - (FIDELITY_RANK.get(b.fidelity) ?? 9) || cmp(a.source ?? '', b.source ?? ''),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
