export { buildSkitEvidence } from './build.js';
export { installationsFromLibrary, type EvidenceScopeFilter } from './from-library.js';
export { skitEvidenceTemplate } from './template.js';
export type { BuildEvidenceOptions, EvidenceActive, EvidenceRelease, EvidenceSkill, SkillObservation, SkitEvidenceFields, SkitInstallation } from './types.js';
