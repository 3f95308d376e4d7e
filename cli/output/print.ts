import type { Diagnostic } from '../../core/errors/index.js';
import { bold, dim, red, sanitize, yellow } from './style.js';

export function out(line = ''): void {
  process.stdout.write(line + '\n');
}

export function err(line = ''): void {
  process.stderr.write(line + '\n');
}

/** Stable machine output: pretty JSON with a trailing newline. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** A left-aligned text table; cells are sanitized. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = rows.map((r) => r.map((c) => sanitize(String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  out(bold(fmt(headers)));
  for (const r of cells) out(fmt(r));
}

/** Human rendering of validation diagnostics: `file:line:col severity CODE message` + hint. */
export function printDiagnostics(diagnostics: readonly Diagnostic[], stream: 'stdout' | 'stderr' = 'stdout'): void {
  const write = stream === 'stdout' ? out : err;
  for (const d of diagnostics) {
    const where = d.file ? `${sanitize(d.file)}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ''}` : ''}` : '(skit)';
    const sev = d.severity === 'error' ? red('error') : d.severity === 'warning' ? yellow('warning') : dim('info');
    write(`${where}  ${sev}  ${d.code}  ${sanitize(d.message)}`);
    if (d.hint) write(dim(`    hint: ${sanitize(d.hint)}`));
  }
}

/** Progress for long work goes to stderr, and only on a TTY, so stdout stays clean for pipes and --json. */
export function progress(message: string): void {
  if (process.stderr.isTTY) process.stderr.write(dim(message) + '\n', 'utf8');
}
