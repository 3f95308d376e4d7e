import type { ErrorCode } from './codes.js';

export type Severity = 'error' | 'warning' | 'info';

/**
 * One validation finding. The JSON form of this interface is the stable, documented output of
 * `sf skit validate --json` (see docs/cli-json.md) and of hub upload rejections.
 */
export interface Diagnostic {
  /** stable rule code, e.g. `SKIT_SKILL_NAME_DUPLICATE`; rules are listed in docs/validation-rules.md */
  code: string;
  severity: Severity;
  message: string;
  /** path relative to the SKIT root, with forward slashes */
  file?: string;
  line?: number;
  column?: number;
  hint?: string;
  /** the SfError code family this finding belongs to, when it would be raised as an error */
  errorCode?: ErrorCode;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

// identical strings are equal without asking ICU, whose first use costs ~5 ms of start-up
const compareText = (x: string, y: string): number => (x === y ? 0 : x.localeCompare(y));

/** Stable order: file, line, column, code. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      compareText(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      compareText(a.code, b.code),
  );
}
