import type { TreeFile } from './tree.js';

/**
 * The shared in-memory shape of a SKIT, produced by validation (core/skit/validate.ts) from a
 * directory, and consumed by hashing, packing, the library and the adapters.
 */

/** A shared resource mapped into one contained skill: `from` is SKIT-relative, `to` is skill-relative. */
export interface SharedMapping {
  from: string;
  to: string;
}

export interface SkillEntry {
  /** the skill name (equals the SKILL.md `name` and the last path segment) */
  name: string;
  /** SKIT-relative directory of the skill; '' when the SKIT root itself is the skill */
  path: string;
  defaultEnabled: boolean;
  shared: SharedMapping[];
}

export interface SkitLayout {
  /** `owner/name`, or `provisional/<fingerprint>` for sources that are not Forge releases */
  id: string;
  provisional: boolean;
  skills: SkillEntry[];
  /** every file of the SKIT, sorted by path */
  files: TreeFile[];
}

/** `owner/name:skill` */
export function skillId(skitId: string, skillName: string): string {
  return `${skitId}:${skillName}`;
}
