import type { EvidenceFidelity, EvidenceSource, InstallMatch } from '../enums.js';

/**
 * `FORGE:SKIT_EVIDENCE` — a Forge extension type (spec section 8): which SKIT releases and
 * contained skills were installed, and which were active, during one unit of work.
 */

/** A row of `### Installed Releases`. */
export interface EvidenceRelease {
  /** SKIT id `owner/name` (or `provisional/<fingerprint>`) */
  skit: string;
  version: string;
  /** `sha256:<64 hex>` over the release's canonical listing */
  bundleHash: string;
}

/** A row of `### Contained Skills`. */
export interface EvidenceSkill {
  /** `owner/name:skill` */
  skill: string;
  /** the release version the skill was installed from */
  version: string;
  contentHash: string;
  enabled: 'yes' | 'no';
}

/** A row of `### Active Skills`: one (skill, content hash, fidelity, source) observation group. */
export interface EvidenceActive {
  skill: string;
  contentHash?: string;
  fidelity: EvidenceFidelity;
  source?: EvidenceSource;
  activations?: number;
  /** `yes`: this exact content is installed; `hash-differs`; `not-installed`; `unknown`: no hash observed */
  installMatch: InstallMatch;
}

/** Structured fields of a `FORGE:SKIT_EVIDENCE` annotation (the render data). */
export interface SkitEvidenceFields {
  /** what the evidence covers, e.g. `issue #42` or `PR #7` */
  scope?: string;
  /** agent host, e.g. `claude-code` */
  host?: string;
  /** ISO 8601 time the evidence was taken */
  recorded: string;
  releases: EvidenceRelease[];
  skills: EvidenceSkill[];
  /** null: no observations were available ("Not recorded"); []: observed, none active ("None") */
  active: EvidenceActive[] | null;
}

/** One installed SKIT release as the canonical library knows it (input of buildSkitEvidence). */
export interface SkitInstallation {
  skitId: string;
  version: string;
  bundleHash: string;
  skills: { id: string; contentHash: string; enabled: boolean }[];
}

/** One recorded activation observation of a contained skill (input of buildSkitEvidence). */
export interface SkillObservation {
  skillId: string;
  contentHash?: string;
  fidelity: EvidenceFidelity;
  source?: EvidenceSource;
  /** how many activations this record stands for (default 1) */
  activations?: number;
}

export interface BuildEvidenceOptions {
  /** ISO 8601; default: now */
  recorded?: string;
  scope?: string;
  host?: string;
}
