import type { Diagnostic } from '../errors/diagnostic.js';
import { parseFrontmatter, type Frontmatter, type FrontmatterProblemKind } from './frontmatter.js';
import { diagnostic, type RuleCode } from './rules.js';
import { checkSchema, skillSchema } from './schemas.js';
import { MAX_NAME_LENGTH, nameProblems, normalizeSkillName, type NameProblem } from './skill-name.js';
import { pointerSegment } from './yaml-positions.js';

/**
 * SKILL.md validation in the Agent Skills format. Errors agree with the reference validator
 * (skills-ref) on the shared corpus; the specification's stricter rules come out as warnings.
 * Deliberate differences are listed in docs/validation-rules.md. Pure: text in, findings out.
 */

export const ALLOWED_SKILL_KEYS = ['name', 'description', 'license', 'allowed-tools', 'metadata', 'compatibility'] as const;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;

export interface SkillMdOptions {
  /** path of the SKILL.md relative to the SKIT root, for diagnostics */
  file: string;
  /** name of the skill's directory; when given, `name` must equal it */
  dirName?: string;
}

export interface SkillMdResult {
  diagnostics: Diagnostic[];
  /** the frontmatter mapping, when it parsed as one */
  frontmatter?: Record<string, unknown>;
  /** the trimmed, NFKC-normalized name when it is a non-empty string */
  name?: string;
  /** the parsed frontmatter with positions and body, when it parsed */
  parsed?: Frontmatter;
}

const PROBLEM_CODES: Record<FrontmatterProblemKind, RuleCode> = {
  bom: 'SKILL_FRONTMATTER_BOM',
  missing: 'SKILL_FRONTMATTER_MISSING',
  unclosed: 'SKILL_FRONTMATTER_UNCLOSED',
  'too-large': 'SKILL_FRONTMATTER_TOO_LARGE',
  yaml: 'SKILL_FRONTMATTER_YAML',
  'not-mapping': 'SKILL_FRONTMATTER_NOT_MAPPING',
};

const NAME_CODES: Record<NameProblem, [RuleCode, (n: string) => string]> = {
  'too-long': ['SKILL_NAME_TOO_LONG', (n) => `name "${n}" is ${n.length} characters long; at most ${MAX_NAME_LENGTH} are allowed`],
  'not-lowercase': ['SKILL_NAME_NOT_LOWERCASE', (n) => `name "${n}" must be lowercase`],
  'hyphen-edge': ['SKILL_NAME_HYPHEN_EDGE', (n) => `name "${n}" must not start or end with a hyphen`],
  'consecutive-hyphens': ['SKILL_NAME_CONSECUTIVE_HYPHENS', (n) => `name "${n}" must not contain consecutive hyphens`],
  'invalid-chars': ['SKILL_NAME_INVALID_CHARS', (n) => `name "${n}" contains characters other than letters, digits and hyphens`],
};

/** Validates the text of one SKILL.md. */
export function validateSkillMd(text: string, options: SkillMdOptions): SkillMdResult {
  const { file } = options;
  const { frontmatter: parsed, problems } = parseFrontmatter(text);
  const diagnostics = problems.map((p) => diagnostic(PROBLEM_CODES[p.kind], p.message, { file, line: p.line, column: p.column }));
  if (!parsed || problems.some((p) => p.kind === 'not-mapping')) return { diagnostics, parsed };

  const data = parsed.data as Record<string, unknown>;
  const errorPointers = new Set<string>();
  const report = (code: RuleCode, key: string, message: string) => {
    const pointer = `/${pointerSegment(key)}`;
    errorPointers.add(pointer);
    diagnostics.push(diagnostic(code, message, { file, ...parsed.positions.locate(pointer) }));
  };

  for (const key of Object.keys(data)) {
    if (!(ALLOWED_SKILL_KEYS as readonly string[]).includes(key)) {
      report('SKILL_FRONTMATTER_UNKNOWN_KEY', key, `unexpected key "${key}" in the SKILL.md frontmatter; allowed: ${ALLOWED_SKILL_KEYS.join(', ')}`);
    }
  }
  const name = checkName(data, options.dirName, report);
  checkDescription(data, report);
  checkCompatibility(data, report);

  for (const f of checkSchema(skillSchema, data)) {
    if (f.keyword === 'required' || f.keyword === 'additionalProperties' || f.pointer === '') continue;
    const key = f.pointer.split('/')[1];
    if (errorPointers.has(`/${key}`)) continue;
    const code = `SKILL_SPEC_${key.replace(/[~-]/g, '_').toUpperCase()}` as RuleCode;
    diagnostics.push(diagnostic(code, `${f.message} (Agent Skills specification)`, { file, ...parsed.positions.locate(f.pointer) }));
  }
  return { diagnostics, frontmatter: data, name, parsed };
}

type Report = (code: RuleCode, key: string, message: string) => void;

function checkName(data: Record<string, unknown>, dirName: string | undefined, report: Report): string | undefined {
  if (!('name' in data)) return void report('SKILL_NAME_MISSING', 'name', 'the SKILL.md frontmatter has no name');
  const raw = data.name;
  if (typeof raw !== 'string') return void report('SKILL_NAME_NOT_STRING', 'name', `name must be a string, not ${describe(raw)}`);
  if (!raw.trim()) return void report('SKILL_NAME_EMPTY', 'name', 'name is empty');
  const name = normalizeSkillName(raw);
  for (const problem of nameProblems(raw)) {
    const [code, message] = NAME_CODES[problem];
    report(code, 'name', message(name));
  }
  if (dirName !== undefined && dirName.normalize('NFKC') !== name) {
    report('SKILL_NAME_DIR_MISMATCH', 'name', `name "${name}" does not match its directory name "${dirName}"`);
  }
  return name;
}

function checkDescription(data: Record<string, unknown>, report: Report): void {
  if (!('description' in data)) return report('SKILL_DESCRIPTION_MISSING', 'description', 'the SKILL.md frontmatter has no description');
  const d = data.description;
  if (typeof d !== 'string') return report('SKILL_DESCRIPTION_NOT_STRING', 'description', `description must be a string, not ${describe(d)}`);
  if (!d.trim()) return report('SKILL_DESCRIPTION_EMPTY', 'description', 'description is empty');
  if (d.length > MAX_DESCRIPTION_LENGTH) {
    report('SKILL_DESCRIPTION_TOO_LONG', 'description', `description is ${d.length} characters long; at most ${MAX_DESCRIPTION_LENGTH} are allowed`);
  }
}

function checkCompatibility(data: Record<string, unknown>, report: Report): void {
  if (!('compatibility' in data)) return;
  const c = data.compatibility;
  if (typeof c !== 'string') return report('SKILL_COMPATIBILITY_NOT_STRING', 'compatibility', `compatibility must be a string, not ${describe(c)}`);
  if (c.length > MAX_COMPATIBILITY_LENGTH) {
    report('SKILL_COMPATIBILITY_TOO_LONG', 'compatibility', `compatibility is ${c.length} characters long; at most ${MAX_COMPATIBILITY_LENGTH} are allowed`);
  }
}

/** A short word for the YAML type of a value, for messages. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  if (value instanceof Uint8Array) return 'binary data (!!binary)';
  if (value instanceof Set) return 'a set (!!set)';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value} (${String(value)})`;
}
