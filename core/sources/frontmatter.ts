import { hasFrontmatter, parseFrontmatter, type FrontmatterProblem } from '../skit/frontmatter.js';

/**
 * Routing questions about frontmatter, answered with core/skit's parser: is a README a SKIT
 * descriptor, and what is a SKILL.md's `name`? Validation with positions stays in core/skit. Pure.
 */

function mapping(text: string): Record<string, unknown> | undefined {
  const data = parseFrontmatter(text).frontmatter?.data;
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
}

/**
 * True when a README.md declares a SKIT: its frontmatter has a top-level `skit` key. A block whose
 * YAML is broken still counts when a `skit:` line opens it, so the validator (not discovery)
 * reports the YAML error.
 */
export function isSkitReadme(text: string): boolean {
  if (!hasFrontmatter(text)) return false;
  const data = mapping(text);
  if (data) return Object.prototype.hasOwnProperty.call(data, 'skit');
  const block = text.split(/\r?\n---[ \t]*(?:\r?\n|$)/, 1)[0];
  return /^skit[ \t]*:/m.test(block);
}

/** The `name` of a SKILL.md, or undefined when it has no frontmatter or no string name. */
export function skillNameOf(text: string): string | undefined {
  const name = mapping(text)?.name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
}

/** Why a SKILL.md's frontmatter cannot be read (missing, unclosed, too large, not YAML), or undefined when it can. */
export function skillFrontmatterProblem(text: string): FrontmatterProblem | undefined {
  return parseFrontmatter(text).problems.find((p) => p.kind !== 'bom');
}
