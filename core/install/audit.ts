import type { Diagnostic } from '../errors/index.js';
import type { InventoryEvent } from '../library/types.js';
import type { SkitLayout } from '../skit/types.js';

/**
 * The declaration review an install or update records for telemetry (agent.skill.audit.completed,
 * spec event catalog: "static or declared capability/trigger review at publish, install, or
 * update"). Pure: it reads what validation already produced, nothing from disk.
 *
 * Per contained skill: the capabilities and mutation scopes its descriptor entry declares (absent
 * when it declares none), the capabilities the ruleset observed in its files (an executable file
 * in the skill, or shared into it, is `process.execute`), and how many validation warnings name
 * one of its files. Bump RULESET_VERSION when what is inferred or counted changes.
 *
 * The ruleset analyses executables only: an empty `inferred` means "no executable", not
 * "no capability" (SKILL.md instructions and scripts without an exec bit are not read), which is
 * why telemetry sends the inferred list only when it is not empty.
 */
export const RULESET_ID = 'forge-declarations';
export const RULESET_VERSION = '1.0.0';

export type ReleaseAudit = NonNullable<InventoryEvent['audit']>;
/** The review of a prepared release; the plan adds the stage (install or update) it happens at. */
export type PreparedAudit = Omit<ReleaseAudit, 'stage'>;
type SkillAudit = ReleaseAudit['skills'][number];

/** The validation codes that name an executable file the descriptor did not list. */
const UNDECLARED_EXECUTABLE = 'SKIT_EXECUTABLE_UNDECLARED';

interface DescriptorSkill {
  name?: unknown;
  capabilities?: unknown;
  mutation_scopes?: unknown;
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...v] : undefined);

/** The descriptor's skill entries by name (a single-skill SKIT's SKILL.md frontmatter has none). */
function descriptorSkills(frontmatter: unknown): Map<string, DescriptorSkill> {
  const skills = (frontmatter as { skills?: unknown } | undefined)?.skills;
  const out = new Map<string, DescriptorSkill>();
  if (Array.isArray(skills)) for (const s of skills as DescriptorSkill[]) if (typeof s?.name === 'string') out.set(s.name, s);
  return out;
}

/** Every executable of the SKIT: the ones the descriptor lists and the ones validation found unlisted. */
function executables(frontmatter: unknown, diagnostics: readonly Diagnostic[]): Set<string> {
  const declared = strings((frontmatter as { capabilities?: { executables?: unknown } } | undefined)?.capabilities?.executables) ?? [];
  const found = diagnostics.filter((d) => d.code === UNDECLARED_EXECUTABLE && d.file).map((d) => d.file!);
  return new Set([...declared, ...found]);
}

/** Whether SKIT-relative `file` is part of the skill: under its directory, or shared into it. */
function inSkill(file: string, skill: SkitLayout['skills'][number]): boolean {
  if (skill.path === '' || file.startsWith(`${skill.path}/`)) return true;
  return skill.shared.some((m) => file === m.from || file.startsWith(`${m.from}/`));
}

export function releaseAudit(
  layout: SkitLayout,
  frontmatter: unknown,
  diagnostics: readonly Diagnostic[],
  skills: readonly { name: string; id: string; hash: string }[],
): PreparedAudit {
  const entries = descriptorSkills(frontmatter);
  const execs = executables(frontmatter, diagnostics);
  const warnings = diagnostics.filter((d) => d.severity === 'warning' && d.file);
  return {
    ruleset_id: RULESET_ID,
    ruleset_version: RULESET_VERSION,
    skills: skills.map((s): SkillAudit => {
      const skill = layout.skills.find((k) => k.name === s.name);
      const entry = entries.get(s.name);
      const declared = strings(entry?.capabilities);
      const scopes = strings(entry?.mutation_scopes);
      const mine = (file: string) => skill !== undefined && inSkill(file, skill);
      return {
        id: s.id,
        content_hash: s.hash,
        ...(declared ? { declared } : {}),
        ...(scopes ? { mutation_scopes: scopes } : {}),
        inferred: [...execs].some(mine) ? ['process.execute'] : [],
        findings: warnings.filter((d) => mine(d.file!)).length,
      };
    }),
  };
}
