export { buildSkitEvidence } from './build.js';
export { installationsFromLibrary, type EvidenceScopeFilter } from './from-library.js';
export { observationsFromEvents, type ObservationWindow, type ObservedEvent } from './from-observations.js';
export { skitEvidenceTemplate } from './template.js';
export type { BuildEvidenceOptions, EvidenceActive, EvidenceRelease, EvidenceSkill, SkillObservation, SkitEvidenceFields, SkitInstallation } from './types.js';
