/**
 * Size and count quotas applied by SKIT validation. One place for the defaults; callers (the CLI,
 * the hub, the installer) pass overrides through `ValidateOptions.limits`.
 */
export interface SkitLimits {
  /** largest single file, bytes */
  maxFileBytes: number;
  /** largest contained skill (own files plus shared mappings), bytes */
  maxSkillBytes: number;
  /** most files in one contained skill (own files plus shared mappings) */
  maxSkillFiles: number;
  /** largest SKIT (every file of the tree), bytes */
  maxSkitBytes: number;
  /** most files in one SKIT */
  maxSkitFiles: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<SkitLimits> = Object.freeze({
  maxFileBytes: 16 * MiB,
  maxSkillBytes: 64 * MiB,
  maxSkillFiles: 2_000,
  maxSkitBytes: 256 * MiB,
  maxSkitFiles: 20_000,
});

/** The defaults with `overrides` applied. */
export function resolveLimits(overrides: Partial<SkitLimits> = {}): SkitLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
