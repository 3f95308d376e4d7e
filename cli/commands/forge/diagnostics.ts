import type { Diagnostic } from '../../../core/errors/index.js';
import { printDiagnostics } from '../../output/print.js';

/** Diagnostics without a `file` (of a Markdown body, or of the input itself) located in `subject`. */
export function locateDiagnostics(diagnostics: readonly Diagnostic[], subject: string): Diagnostic[] {
  return diagnostics.map((d) => (d.file ? d : { ...d, file: subject }));
}

/**
 * Text-mode diagnostics of `sf forge parse/check`. The shared printer shows a diagnostic without a
 * file as "(skit)" and without its line, so each one gets the input path (or "(stdin)") first.
 */
export function printForgeDiagnostics(diagnostics: readonly Diagnostic[], subject: string): void {
  printDiagnostics(locateDiagnostics(diagnostics, subject));
}
