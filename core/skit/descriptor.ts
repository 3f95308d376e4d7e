/**
 * Reads a SKIT descriptor (README.md frontmatter or a supplied object) defensively: the JSON Schema
 * reports malformed parts, and this keeps whatever is well-formed so the other rules can still run.
 * Pure.
 */

export interface DescriptorMapping {
  from: string;
  to: string;
  /** index in the entry's `shared` list, for JSON pointers */
  index: number;
}

export interface DescriptorSkill {
  /** index in `skills`, for JSON pointers */
  index: number;
  name: string;
  path: string;
  defaultEnabled: boolean;
  shared: DescriptorMapping[];
  /** per-skill declarations the spec asks for that this entry leaves out */
  missingDeclarations: string[];
}

export interface DeclaredCapabilities {
  executables: string[];
  hooks: string[];
  mcp: string[];
}

export interface Descriptor {
  id?: string;
  skills: DescriptorSkill[];
  capabilities: DeclaredCapabilities;
}

/** Per-skill declarations every contained skill should carry (an empty list is a declaration). */
export const SKILL_DECLARATIONS = ['trigger_modes', 'mutation_scopes', 'capabilities', 'approval_expectations', 'expected_outputs'] as const;

export const CAPABILITY_KINDS = ['executables', 'hooks', 'mcp'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

export function readDescriptor(data: unknown): Descriptor {
  const d = isRecord(data) ? data : {};
  const skills: DescriptorSkill[] = [];
  (Array.isArray(d.skills) ? d.skills : []).forEach((entry, index) => {
    if (!isRecord(entry) || !isString(entry.name) || !isString(entry.path)) return;
    const shared: DescriptorMapping[] = [];
    (Array.isArray(entry.shared) ? entry.shared : []).forEach((m, i) => {
      if (isRecord(m) && isString(m.from) && isString(m.to)) shared.push({ from: m.from, to: m.to, index: i });
    });
    skills.push({
      index,
      name: entry.name,
      path: entry.path,
      defaultEnabled: entry.default_enabled !== false,
      shared,
      missingDeclarations: SKILL_DECLARATIONS.filter((k) => !(k in entry)),
    });
  });
  const caps = isRecord(d.capabilities) ? d.capabilities : {};
  const list = (v: unknown) => (Array.isArray(v) ? v.filter(isString) : []);
  return {
    id: isString(d.id) ? d.id : undefined,
    skills,
    capabilities: { executables: list(caps.executables), hooks: list(caps.hooks), mcp: list(caps.mcp) },
  };
}
