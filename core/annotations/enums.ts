import { AGENT_SKILL_EVIDENCE_FIDELITY_VALUES, AGENT_SKILL_EVIDENCE_SOURCE_VALUES } from '../../schemas/generated/semconv.js';
/**
 * Enumerated values of the FORGE annotation protocol v1.0 (spec section 4) and of the
 * `FORGE:SKIT_EVIDENCE` extension. Values are compared exactly: consumers route on them.
 */

/** `**Verdict**` of `FORGE:INVESTIGATOR` (4.1). */
export const INVESTIGATION_VERDICTS = ['CONFIRMED', 'PARTIAL', 'INVALID'] as const;
/** `**Confidence**` of `FORGE:INVESTIGATOR` (4.1). */
export const CONFIDENCE_LEVELS = ['HIGH', 'MEDIUM', 'LOW'] as const;
/** `**Severity**` of `FORGE:INVESTIGATOR` and of a `FORGE:REVIEWER` finding (4.1). */
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
/** `**Task Type**` of `FORGE:INVESTIGATOR`, `**Task type**` of `FORGE:CONTRACT` (4.1). */
export const TASK_TYPES = ['Bug Fix', 'Feature', 'Refactor', 'Maintenance', 'Investigation'] as const;
/** The bold value of the `### Decomposition Assessment` section (4.1). */
export const DECOMPOSITION_ASSESSMENTS = ['YES', 'NO'] as const;
/** `**Verdict**` of `FORGE:REVIEWER` (4.1). */
export const REVIEW_VERDICTS = ['APPROVED', 'CHANGES_REQUESTED', 'COMMENTED'] as const;
/** The Severity column of the `FORGE:ARCHITECT` Risk Assessment table (4.1): no CRITICAL there. */
export const RISK_SEVERITIES = ['HIGH', 'MEDIUM', 'LOW'] as const;
/** The result after a criterion in the `FORGE:BUILDER` Acceptance Criteria Status list (4.1). */
export const ACCEPTANCE_RESULTS = ['PASS', 'FAIL'] as const;
/** Phase names of the `FORGE:TRAJECTORY` table as the spec lists them (4.1); others are allowed. */
export const TRAJECTORY_PHASES = ['Context Load', 'Investigation', 'Decomposition', 'Build', 'Quality Gate', 'Review + Merge', 'Close'] as const;

/** `agent.skill.evidence.fidelity` from the semconv registry, used by `FORGE:SKIT_EVIDENCE`. */
export const EVIDENCE_FIDELITIES = AGENT_SKILL_EVIDENCE_FIDELITY_VALUES;
/** `agent.skill.evidence.source` from the semconv registry, used by `FORGE:SKIT_EVIDENCE`. */
export const EVIDENCE_SOURCES = AGENT_SKILL_EVIDENCE_SOURCE_VALUES;
/** Yes/no cells of the `FORGE:SKIT_EVIDENCE` tables. */
export const YES_NO = ['yes', 'no'] as const;
/** How an observed skill relates to what is installed (`FORGE:SKIT_EVIDENCE` Active Skills). */
export const INSTALL_MATCHES = ['yes', 'hash-differs', 'not-installed', 'unknown'] as const;

export type InvestigationVerdict = (typeof INVESTIGATION_VERDICTS)[number];
export type ConfidenceLevel = (typeof CONFIDENCE_LEVELS)[number];
export type Severity = (typeof SEVERITIES)[number];
export type TaskType = (typeof TASK_TYPES)[number];
export type DecompositionAssessment = (typeof DECOMPOSITION_ASSESSMENTS)[number];
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];
export type RiskSeverity = (typeof RISK_SEVERITIES)[number];
export type EvidenceFidelity = (typeof EVIDENCE_FIDELITIES)[number];
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];
export type InstallMatch = (typeof INSTALL_MATCHES)[number];

/** True when `value` is one of `allowed` (exact, case-sensitive). */
export function isOneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}
