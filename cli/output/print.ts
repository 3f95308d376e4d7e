import type { Diagnostic } from '../../core/errors/index.js';
import { isTerminal, write } from './stdio.js';
import { bold, dim, red, sanitize, yellow } from './style.js';

export function out(line = ''): void {
  write('stdout', line + '\n');
}

export function err(line = ''): void {
  write('stderr', line + '\n');
}

/** Stable machine output: pretty JSON with a trailing newline. */
export function printJson(value: unknown): void {
  write('stdout', JSON.stringify(value, null, 2) + '\n');
}

/** A left-aligned text table; cells are sanitized. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  // headers in capitals in every table, whatever the command passes
  const lines = aligned([headers.map((h) => h.toUpperCase()), ...rows]);
  out(bold(lines[0]));
  for (const line of lines.slice(1)) out(line);
}

/** Rows in aligned columns without a header (a summary's `label  value` lines), each after `indent`. */
export function printRows(rows: (string | number)[][], indent = ''): void {
  for (const line of aligned(rows)) out(`${indent}${line}`);
}

/** Sanitized cells padded to their column's width (the last column is not padded), two spaces apart. */
function aligned(rows: (string | number)[][]): string[] {
  const cells = rows.map((r) => r.map((c) => sanitize(String(c))));
  const widths: number[] = [];
  for (const r of cells) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
}

/**
 * Human rendering of diagnostics: `file:line:col severity CODE message` + hint; `subject` stands in
 * for the file when a diagnostic has none (what the command checked).
 */
export function printDiagnostics(diagnostics: readonly Diagnostic[], stream: 'stdout' | 'stderr' = 'stdout', subject = '(skit)'): void {
  const line = stream === 'stdout' ? out : err;
  for (const d of diagnostics) {
    const where = d.file ? `${sanitize(d.file)}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ''}` : ''}` : subject;
    const sev = d.severity === 'error' ? red('error', stream) : d.severity === 'warning' ? yellow('warning', stream) : dim('info', stream);
    line(`${where}  ${sev}  ${d.code}  ${sanitize(d.message)}`);
    if (d.hint) line(dim(`    hint: ${sanitize(d.hint)}`, stream));
  }
}

/** Progress for long work goes to stderr, and only on a TTY, so stdout stays clean for pipes and --json. */
export function progress(message: string): void {
  if (isTerminal('stderr')) write('stderr', dim(message, 'stderr') + '\n');
}
