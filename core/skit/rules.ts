import type { ErrorCode } from '../errors/codes.js';
import type { Diagnostic, Severity } from '../errors/diagnostic.js';

/**
 * The catalog of validation rules: one stable code per rule, its default severity, the SfError code
 * family it belongs to, and a default fix hint. docs/validation-rules.md documents every code here
 * (a test keeps the two in step). Call sites may pass a more specific hint.
 */
export interface RuleInfo {
  severity: Severity;
  errorCode: ErrorCode;
  hint: string;
}

const r = (severity: Severity, errorCode: ErrorCode, hint: string): RuleInfo => ({ severity, errorCode, hint });
const FM = 'SF_E_FRONTMATTER' as const;
const V = 'SF_E_VALIDATION' as const;
const U = 'SF_E_UNSAFE_PATH' as const;

export const RULES = {
  // SKILL.md: errors agree with skills-ref
  SKILL_MD_MISSING: r('error', V, 'add a SKILL.md with name and description frontmatter to the skill directory'),
  SKILL_MD_LOWERCASE: r('warning', V, 'rename skill.md to SKILL.md; several agent hosts only look for the upper-case name'),
  SKILL_FRONTMATTER_BOM: r('error', FM, 'save SKILL.md as UTF-8 without a byte-order mark'),
  SKILL_FRONTMATTER_MISSING: r('error', FM, 'start SKILL.md with a "---" line, the YAML keys name and description, and a closing "---" line'),
  SKILL_FRONTMATTER_UNCLOSED: r('error', FM, 'close the frontmatter with a line containing only "---"'),
  SKILL_FRONTMATTER_TOO_LARGE: r('error', FM, 'keep the frontmatter under 1 MiB: move long data into files of the skill and point to them from the body'),
  SKILL_FRONTMATTER_YAML: r('error', FM, 'fix the YAML syntax; quote values that contain ": " or start with a special character'),
  SKILL_FRONTMATTER_NOT_MAPPING: r('error', FM, 'write the frontmatter as "key: value" lines, not a list or a bare value'),
  SKILL_FRONTMATTER_UNKNOWN_KEY: r('error', V, 'use only name, description, license, allowed-tools, metadata and compatibility; put anything else under metadata'),
  SKILL_NAME_MISSING: r('error', V, 'add "name: <directory name>" to the frontmatter'),
  SKILL_NAME_NOT_STRING: r('error', V, 'quote the name so YAML reads it as a string, e.g. name: "123"'),
  SKILL_NAME_EMPTY: r('error', V, 'give the skill a non-empty name equal to its directory name'),
  SKILL_NAME_TOO_LONG: r('error', V, 'shorten the name to at most 64 characters (and rename the directory to match)'),
  SKILL_NAME_NOT_LOWERCASE: r('error', V, 'use lowercase letters only in the name (and rename the directory to match)'),
  SKILL_NAME_HYPHEN_EDGE: r('error', V, 'remove the leading or trailing hyphen from the name'),
  SKILL_NAME_CONSECUTIVE_HYPHENS: r('error', V, 'replace "--" with a single hyphen in the name'),
  SKILL_NAME_INVALID_CHARS: r('error', V, 'use only lowercase letters, digits and hyphens in the name'),
  SKILL_NAME_DIR_MISMATCH: r('error', V, 'rename the directory or change name so that both are the same'),
  SKILL_DESCRIPTION_MISSING: r('error', V, 'add "description:" saying what the skill does and when to use it'),
  SKILL_DESCRIPTION_NOT_STRING: r('error', V, 'write the description as a string (quote it if YAML reads it as a number, list or mapping)'),
  SKILL_DESCRIPTION_EMPTY: r('error', V, 'write a description saying what the skill does and when to use it'),
  SKILL_DESCRIPTION_TOO_LONG: r('error', V, 'shorten the description to at most 1024 characters; move detail into the body'),
  SKILL_COMPATIBILITY_NOT_STRING: r('error', V, 'write compatibility as one string, e.g. "Requires git and network access"'),
  SKILL_COMPATIBILITY_TOO_LONG: r('error', V, 'shorten compatibility to at most 500 characters'),
  // SKILL.md: the specification's stricter rules, which skills-ref does not enforce
  SKILL_SPEC_NAME: r('warning', V, 'the specification allows only a-z, 0-9 and single hyphens in names; use an ASCII name'),
  SKILL_SPEC_DESCRIPTION: r('warning', V, 'write the description as a non-empty string of at most 1024 characters'),
  SKILL_SPEC_LICENSE: r('warning', V, 'write license as a string, e.g. "MIT" or "LICENSE.txt"'),
  SKILL_SPEC_ALLOWED_TOOLS: r('warning', V, 'write allowed-tools as one space-delimited string, e.g. "Bash(git:*) Read"'),
  SKILL_SPEC_METADATA: r('warning', V, 'make metadata a mapping of string keys to string values; quote numbers and booleans'),
  SKILL_SPEC_COMPATIBILITY: r('warning', V, 'write compatibility as a non-empty string or remove the key'),

  // SKIT descriptor (README.md frontmatter or a supplied descriptor)
  SKIT_DESCRIPTOR_MISSING: r('error', V, 'add README.md starting with SKIT frontmatter (skit: 1, id, skills) or a SKILL.md for a single skill; `sf skit init` writes an example'),
  SKIT_README_NOT_DESCRIPTOR: r('info', V, 'add "skit: 1", id and skills to the README.md frontmatter to make this a multi-skill SKIT'),
  SKIT_FRONTMATTER_BOM: r('error', FM, 'save README.md as UTF-8 without a byte-order mark'),
  SKIT_FRONTMATTER_UNCLOSED: r('error', FM, 'close the README.md frontmatter with a line containing only "---"'),
  SKIT_FRONTMATTER_TOO_LARGE: r('error', FM, 'keep the README.md frontmatter under 1 MiB'),
  SKIT_FRONTMATTER_YAML: r('error', FM, 'fix the YAML syntax of the README.md frontmatter'),
  SKIT_FRONTMATTER_NOT_MAPPING: r('error', FM, 'write the SKIT frontmatter as a mapping with skit, id and skills'),
  SKIT_FRONTMATTER_UNKNOWN_KEY: r('error', V, 'remove the key or fix its spelling; see schemas/json/skit-frontmatter.schema.json'),
  SKIT_FRONTMATTER_MISSING_KEY: r('error', V, 'add the required key; see schemas/json/skit-frontmatter.schema.json'),
  SKIT_FRONTMATTER_TYPE: r('error', V, 'give the key a value of the expected type'),
  SKIT_FRONTMATTER_VALUE: r('error', V, 'use one of the allowed values or formats'),
  SKIT_ID_RESERVED: r('error', V, 'the owner "provisional" is reserved for sources that are not Forge releases; use your own owner name'),
  SKIT_SKILL_NAME_DUPLICATE: r('error', V, 'give every contained skill a different name'),
  SKIT_SKILL_PATH_DUPLICATE: r('error', V, 'give every contained skill its own directory'),
  SKIT_SKILL_PATH_UNSAFE: r('error', U, 'use a SKIT-relative path with forward slashes, e.g. skills/<name>'),
  SKIT_SKILL_PATH_NESTED: r('error', V, 'move the skills side by side, e.g. skills/a and skills/b; a skill may not contain another'),
  SKIT_SKILL_PATH_MISSING: r('error', V, 'create the skill directory with a SKILL.md, or fix the path'),
  SKIT_SKILL_DIR_MISMATCH: r('error', V, 'name the skill directory after the skill (the last path segment equals name)'),
  SKIT_SKILL_NAME_MISMATCH: r('error', V, 'make the README.md entry name and the SKILL.md name the same'),
  SKIT_SKILL_DECLARATIONS_INCOMPLETE: r('warning', V, 'declare trigger_modes, mutation_scopes, capabilities, approval_expectations and expected_outputs for the skill ([] when none)'),
  SKIT_SKILL_UNDECLARED: r('warning', V, 'add the skill to skills in README.md, or remove the stray SKILL.md; undeclared skills are not installed'),
  SKIT_ROOT_SKILL_IGNORED: r('warning', V, 'move the root SKILL.md into its own skill directory and declare it, or remove it'),
  SKIT_SKILL_TRAVERSAL: r('error', V, 'a skill sees only its own directory and its shared mappings once installed; add a shared mapping and link to its `to` path'),
  SKIT_SHARED_PATH_UNSAFE: r('error', U, 'use safe relative paths: from is SKIT-relative, to is skill-relative'),
  SKIT_SHARED_FROM_MISSING: r('error', V, 'point from at an existing file or directory of the SKIT'),
  SKIT_SHARED_FROM_IN_SKILL: r('error', V, 'move shared files out of the skill directories, e.g. into shared/'),
  SKIT_SHARED_TO_COLLISION: r('error', 'SF_E_PATH_COLLISION', 'choose a `to` path that is free inside the skill'),
  SKIT_ID_PROVISIONAL: r('info', V, 'add README.md with SKIT frontmatter to give the SKIT a stable owner/name id'),

  // the file tree
  SKIT_PATH_UNSAFE: r('error', U, 'rename the file so every segment is a plain name (no .., backslash, control characters, reserved device names)'),
  SKIT_PATH_COLLISION: r('error', 'SF_E_PATH_COLLISION', 'rename one of the files; they would land on the same file on case-insensitive or normalizing filesystems'),
  SKIT_TREE_SYMLINK: r('error', U, 'replace the symbolic link with a regular file, or use a shared mapping'),
  SKIT_TREE_SPECIAL_FILE: r('error', U, 'remove the device, FIFO or socket from the SKIT'),
  SKIT_LIKELY_SECRET: r('warning', V, 'remove the file or move it out of the SKIT directory: everything in it is packed, published and installed (`sf skit publish` refuses it unless --allow-secrets)'),

  // capabilities
  SKIT_EXECUTABLE_UNDECLARED: r('error', V, 'list the file under capabilities.executables in README.md, or clear its exec bit and #! line'),
  SKIT_HOOK_UNDECLARED: r('error', V, 'list the file under capabilities.hooks in README.md'),
  SKIT_MCP_UNDECLARED: r('error', V, 'list the file under capabilities.mcp in README.md'),
  SKIT_CAPABILITY_MISSING: r('error', V, 'remove the entry or add the file it names'),
  SKIT_CAPABILITY_PATH_UNSAFE: r('error', U, 'use a SKIT-relative file path with forward slashes'),
  SKIT_CONFIG_UNPARSABLE: r('warning', V, 'fix the JSON syntax; the file is treated as a hook or MCP declaration until it parses'),

  // quotas
  SKIT_QUOTA_FILE_BYTES: r('error', 'SF_E_LIMIT', 'shrink or remove the file, or raise the per-file limit'),
  SKIT_QUOTA_SKILL_BYTES: r('error', 'SF_E_LIMIT', 'shrink the skill (own files plus shared mappings), or raise the per-skill limit'),
  SKIT_QUOTA_SKILL_FILES: r('error', 'SF_E_LIMIT', 'reduce the number of files in the skill, or raise the per-skill limit'),
  SKIT_QUOTA_SKIT_BYTES: r('error', 'SF_E_LIMIT', 'shrink the SKIT or split it, or raise the per-SKIT limit'),
  SKIT_QUOTA_SKIT_FILES: r('error', 'SF_E_LIMIT', 'reduce the number of files or split the SKIT, or raise the per-SKIT limit'),
  SKIT_QUOTA_PATH_DEPTH: r('error', 'SF_E_LIMIT', 'use a flatter directory layout (archives refuse deeper paths)'),
} as const satisfies Record<string, RuleInfo>;

export type RuleCode = keyof typeof RULES;

/** Where a finding is: file relative to the SKIT root, 1-based line and column when known. */
export interface Where {
  file?: string;
  line?: number;
  column?: number;
}

/** Builds a Diagnostic for `code` with the catalog's severity and hint unless overridden. */
export function diagnostic(
  code: RuleCode,
  message: string,
  where: Where = {},
  extra: { hint?: string; severity?: Severity } = {},
): Diagnostic {
  const rule: RuleInfo = RULES[code];
  const d: Diagnostic = { code, severity: extra.severity ?? rule.severity, message };
  if (where.file !== undefined) d.file = where.file;
  if (where.line !== undefined) d.line = where.line;
  if (where.column !== undefined) d.column = where.column;
  d.hint = extra.hint ?? rule.hint;
  d.errorCode = rule.errorCode;
  return d;
}
