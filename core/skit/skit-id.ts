import { skitFrontmatterSchema } from '../../schemas/generated/skit-frontmatter.js';

/** The SKIT id rule `owner/name` from the SKIT frontmatter schema (one definition). */
export const SKIT_ID_PATTERN = new RegExp(skitFrontmatterSchema.$defs.skitId.pattern);

/** True when `id` is a well-formed `owner/name` SKIT id. */
export function isValidSkitId(id: string): boolean {
  return SKIT_ID_PATTERN.test(id);
}
