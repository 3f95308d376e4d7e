import type { Diagnostic } from '../errors/diagnostic.js';
import { skillId } from './types.js';
import type { ValidationResult } from './validate-layout.js';

/**
 * The stable JSON form of a validation result, printed by `sf skit validate --json` and documented
 * in docs/cli-json.md. Field order and names are part of the contract; optional diagnostic fields
 * are left out when unknown.
 */
export interface ValidationReport {
  ok: boolean;
  /** null when no SKIT id and skills could be read */
  skit: null | {
    id: string;
    provisional: boolean;
    skills: { name: string; id: string; path: string; default_enabled: boolean }[];
  };
  diagnostics: Diagnostic[];
  summary: { errors: number; warnings: number };
}

export function validationReport(result: ValidationResult): ValidationReport {
  const layout = result.layout;
  return {
    ok: result.ok,
    skit: layout
      ? {
          id: layout.id,
          provisional: layout.provisional,
          skills: layout.skills.map((s) => ({ name: s.name, id: skillId(layout.id, s.name), path: s.path, default_enabled: s.defaultEnabled })),
        }
      : null,
    diagnostics: result.diagnostics.map(stableDiagnostic),
    summary: countSeverities(result.diagnostics),
  };
}

export function countSeverities(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const d of diagnostics) {
    if (d.severity === 'error') errors++;
    else if (d.severity === 'warning') warnings++;
  }
  return { errors, warnings };
}

function stableDiagnostic(d: Diagnostic): Diagnostic {
  const out: Diagnostic = { code: d.code, severity: d.severity, message: d.message };
  if (d.file !== undefined) out.file = d.file;
  if (d.line !== undefined) out.line = d.line;
  if (d.column !== undefined) out.column = d.column;
  if (d.hint !== undefined) out.hint = d.hint;
  if (d.errorCode !== undefined) out.errorCode = d.errorCode;
  return out;
}
