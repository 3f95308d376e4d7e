import type { ArchiveLimits } from '../core/archive/index.js';
import { DEFAULT_LIMITS, type SkitLimits } from '../core/skit/limits.js';

/**
 * Every registry quota of the hub in one place. Each number can be overridden per hub through
 * HubOptions.limits; the defaults suit a small team hub.
 */
export interface RegistryLimits {
  /** largest accepted upload body (compressed archive bytes) */
  maxUploadBytes: number;
  /** largest single file inside a release */
  maxFileBytes: number;
  /** largest contained skill (sum of its projected files) */
  maxSkillBytes: number;
  /** largest SKIT (sum of all files, uncompressed) */
  maxSkitBytes: number;
  /** most files in one release */
  maxFiles: number;
  /** most releases of one SKIT */
  maxReleasesPerSkit: number;
  /** total stored archive bytes per owner (release archives plus per-skill archives) */
  maxOwnerStorageBytes: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_REGISTRY_LIMITS: RegistryLimits = {
  maxUploadBytes: 20 * MiB,
  maxFileBytes: 5 * MiB,
  maxSkillBytes: 20 * MiB,
  maxSkitBytes: 50 * MiB,
  maxFiles: 2000,
  maxReleasesPerSkit: 1000,
  maxOwnerStorageBytes: 1024 * MiB,
};

/** The defaults with `overrides` applied. */
export function resolveRegistryLimits(overrides: Partial<RegistryLimits> = {}): RegistryLimits {
  return { ...DEFAULT_REGISTRY_LIMITS, ...overrides };
}

/**
 * The registry quotas as SKIT validation limits, so an upload over a per-file, per-skill or
 * per-SKIT quota is rejected with the same diagnostics `sf skit validate` prints.
 */
export function skitLimitsOf(limits: RegistryLimits): SkitLimits {
  return {
    maxFileBytes: limits.maxFileBytes,
    maxSkillBytes: limits.maxSkillBytes,
    maxSkillFiles: limits.maxFiles,
    maxSkitBytes: limits.maxSkitBytes,
    maxSkitFiles: limits.maxFiles,
    maxPathDepth: DEFAULT_LIMITS.maxPathDepth,
  };
}

/**
 * Archive limits for unpacking an upload. They bound disk and memory at the SKIT quota, but are
 * deliberately a little looser per file and per entry count than the quotas themselves, so that
 * a file or a file count over quota reaches validation and gets its diagnostic (422) instead of
 * an anonymous archive-limit refusal.
 */
export function uploadArchiveLimits(limits: RegistryLimits): Partial<ArchiveLimits> {
  return {
    maxEntries: limits.maxFiles * 2 + 16,
    maxEntrySize: limits.maxSkitBytes,
    maxTotalSize: limits.maxSkitBytes,
  };
}
