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
  /** most path segments of one file's path */
  maxPathDepth: number;
}

import { DEFAULT_ARCHIVE_LIMITS } from '../archive/limits.js';

const MiB = 1024 * 1024;

// A valid SKIT must pack into an archive that unpacks: the per-SKIT quotas are the archive limits
// (a release archive has one entry per file and no directory entries)
export const DEFAULT_LIMITS: Readonly<SkitLimits> = Object.freeze({
  maxFileBytes: 16 * MiB,
  maxSkillBytes: 64 * MiB,
  maxSkillFiles: 2_000,
  maxSkitBytes: DEFAULT_ARCHIVE_LIMITS.maxTotalSize,
  maxSkitFiles: DEFAULT_ARCHIVE_LIMITS.maxEntries,
  maxPathDepth: DEFAULT_ARCHIVE_LIMITS.maxPathDepth,
});

/** The defaults with `overrides` applied. */
export function resolveLimits(overrides: Partial<SkitLimits> = {}): SkitLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
