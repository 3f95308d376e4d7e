import type { Diagnostic } from '../core/errors/diagnostic.js';
import { scaffoldSkit } from '../core/skit/scaffold.js';
import { validateSkitLayout, type SkitLayoutInput, type ValidationResult } from '../core/skit/validate-layout.js';

/** In-memory SKIT trees for pure validation tests: path -> text, or { content, exec }. */
export type MemoryTree = Record<string, string | { content: string; exec?: boolean }>;

/** Builds the data input of validateSkitLayout from an in-memory tree. */
export function layoutInput(tree: MemoryTree, extra: Partial<SkitLayoutInput> = {}): SkitLayoutInput {
  const files = Object.entries(tree).map(([path, spec]) => {
    const content = typeof spec === 'string' ? spec : spec.content;
    const exec = typeof spec !== 'string' && spec.exec === true;
    return { path, mode: exec ? ('exec' as const) : ('file' as const), size: Buffer.byteLength(content) };
  });
  const contents = new Map(Object.entries(tree).map(([path, spec]) => [path, typeof spec === 'string' ? spec : spec.content]));
  return { files, contents, ...extra };
}

/** Validates an in-memory tree. */
export function validateTree(tree: MemoryTree, extra: Partial<SkitLayoutInput> = {}): ValidationResult {
  return validateSkitLayout(layoutInput(tree, extra));
}

/** The codes of diagnostics of one severity (default: errors), sorted. */
export function codesOf(result: { diagnostics: Diagnostic[] }, severity: Diagnostic['severity'] = 'error'): string[] {
  return result.diagnostics.filter((d) => d.severity === severity).map((d) => d.code).sort();
}

/** The first diagnostic with `code`, or a thrown error listing what was found instead. */
export function findDiagnostic(result: { diagnostics: Diagnostic[] }, code: string): Diagnostic {
  const d = result.diagnostics.find((x) => x.code === code);
  if (!d) throw new Error(`no ${code} among ${result.diagnostics.map((x) => x.code).join(', ') || 'no diagnostics'}`);
  return d;
}

export const skillMd = (name: string, extra = '', body = '# Steps\n\n1. Do it.\n') =>
  `---\nname: ${name}\ndescription: Does ${name} things. Use when asked to ${name}.\n${extra}---\n\n${body}`;

/** A SKIT README whose frontmatter is `yaml` (without the --- lines). */
export const readme = (yaml: string) => `---\n${yaml.trimEnd()}\n---\n\n# Kit\n`;

/** The per-skill declarations that keep SKIT_SKILL_DECLARATIONS_INCOMPLETE quiet. */
export const DECLARED = `    trigger_modes: [explicit]
    mutation_scopes: [none]
    capabilities: []
    approval_expectations: []
    expected_outputs: [notes]
`;

/** A valid two-skill SKIT (what `sf skit init` writes) as an in-memory tree. */
export function scaffoldTree(id = 'acme/kit'): MemoryTree {
  return { ...scaffoldSkit({ id }) };
}
