import type { Diagnostic } from '../errors/diagnostic.js';
import { hasFrontmatter, parseFrontmatter, type FrontmatterProblemKind } from './frontmatter.js';
import { diagnostic, type RuleCode, type Where } from './rules.js';

/**
 * Decides what kind of SKIT a tree is: a multi-skill SKIT described by README.md frontmatter (or by
 * a descriptor the caller supplies), a single-skill SKIT (a root SKILL.md and no SKIT README), or
 * nothing valid. Pure.
 */

/** Position of a JSON pointer into the descriptor, as a diagnostic location. */
export type Locate = (pointer: string) => Where;

export type DescriptorSource =
  | { kind: 'descriptor'; data: unknown; locate: Locate; fromReadme: boolean; diagnostics: Diagnostic[] }
  | { kind: 'single'; diagnostics: Diagnostic[] }
  | { kind: 'none'; diagnostics: Diagnostic[] };

export const README = 'README.md';

const PROBLEM_CODES: Record<FrontmatterProblemKind, RuleCode> = {
  bom: 'SKIT_FRONTMATTER_BOM',
  missing: 'SKIT_FRONTMATTER_NOT_MAPPING',
  unclosed: 'SKIT_FRONTMATTER_UNCLOSED',
  'too-large': 'SKIT_FRONTMATTER_TOO_LARGE',
  yaml: 'SKIT_FRONTMATTER_YAML',
  'not-mapping': 'SKIT_FRONTMATTER_NOT_MAPPING',
};

export interface DescriptorInputs {
  /** a descriptor supplied by the caller; README.md is then not read */
  descriptor?: unknown;
  /** text of the root README.md, when there is one */
  readme?: string;
  /** name of the root SKILL.md (or skill.md), when there is one */
  rootSkillFile?: string;
}

export function findDescriptor({ descriptor, readme, rootSkillFile }: DescriptorInputs): DescriptorSource {
  if (descriptor !== undefined) return { kind: 'descriptor', data: descriptor, locate: () => ({}), fromReadme: false, diagnostics: [] };
  if (readme !== undefined && hasFrontmatter(readme)) {
    const { frontmatter, problems } = parseFrontmatter(readme);
    const mapping = frontmatter !== undefined && !problems.some((p) => p.kind === 'not-mapping');
    const data = frontmatter?.data as Record<string, unknown> | undefined;
    // a README whose frontmatter is not a SKIT descriptor is only documentation next to a SKILL.md
    const meant = mapping ? 'skit' in data! : /^skit[ \t]*:/m.test(readme.slice(0, 64 * 1024));
    if (meant || !rootSkillFile) {
      const diagnostics = problems.map((p) => diagnostic(PROBLEM_CODES[p.kind], p.message, { file: README, line: p.line, column: p.column }));
      if (!frontmatter) return { kind: 'none', diagnostics };
      return { kind: 'descriptor', data, locate: (p) => ({ file: README, ...frontmatter.positions.locate(p) }), fromReadme: true, diagnostics };
    }
    const diagnostics = mapping
      ? [diagnostic('SKIT_README_NOT_DESCRIPTOR', `README.md frontmatter has no "skit" key; treating the directory as a single-skill SKIT (${rootSkillFile})`, { file: README, line: 1, column: 1 })]
      : [];
    return { kind: 'single', diagnostics };
  }
  if (rootSkillFile) return { kind: 'single', diagnostics: [] };
  const message = readme === undefined
    ? 'no README.md with SKIT frontmatter and no SKILL.md at the root'
    : 'README.md has no SKIT frontmatter and there is no SKILL.md at the root';
  return { kind: 'none', diagnostics: [diagnostic('SKIT_DESCRIPTOR_MISSING', message, readme === undefined ? {} : { file: README, line: 1, column: 1 })] };
}
