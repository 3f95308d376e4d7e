import { isOneOf } from '../enums.js';
import { oneOf, refuseUnknownKeys, requireSingleLine } from './guard.js';
import { isWholeNumber, readWholeNumber, wholeNumberProblem } from './numbers.js';
import { enumDiag } from './codecs-text.js';
import type { Codec, ColumnSpec, Line, Reporter } from './spec.js';

/**
 * GitHub-flavoured Markdown tables. Render writes `| a | b |` rows under a separator of
 * header-width + 2 dashes (exactly the spec's templates); `|` inside a cell is escaped as `\|`.
 */

export interface TableOptions {
  columns: ColumnSpec[];
  /** the one-line text written for an empty array (and read back as []), e.g. `None` */
  emptyText?: string;
  /** the one-line text written for null (and read back as null), e.g. `Not recorded` */
  nullText?: string;
}

const SEPARATOR_CELL = /^:?-+:?$/;

/** Splits a table row into trimmed cells, honouring `\|` escapes. */
export function splitRow(text: string): string[] {
  let row = text.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

const normalizeHeader = (h: string) => h.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * Where each expected column is in a table whose header is `head`. Columns are found by their
 * header name (case and spacing ignored), so reordered columns are read right and unknown ones are
 * skipped. Only when no header name is recognised at all are columns read by position.
 */
function columnPositions(head: string[], headers: string[]): { byName: boolean; positions: number[]; guessed: number[] } {
  const names = head.map(normalizeHeader);
  const positions = headers.map((h) => names.indexOf(normalizeHeader(h)));
  if (!positions.some((p) => p >= 0)) return { byName: false, positions: headers.map((_, i) => i), guessed: [] };
  // a table of the template's width with one header renamed (`| Risk | Sev | Mitigation |`): the
  // unrecognised column in the template's place is still read there, as it was before
  const guessed: number[] = [];
  if (head.length === headers.length) {
    positions.forEach((p, c) => {
      if (p < 0 && !positions.includes(c)) {
        positions[c] = c;
        guessed.push(c);
      }
    });
  }
  return { byName: true, positions, guessed };
}

export function tableCodec(options: TableOptions): Codec<Record<string, unknown>[] | null> {
  const { columns, emptyText, nullText } = options;
  const headers = columns.map((c) => c.header);
  const matches = (text: string | undefined, line: Line[]) => text !== undefined && line.length === 1 && new RegExp(`^${text}\\.?$`, 'i').test(line[0].text.trim());
  return {
    parse(lines, report) {
      if (matches(nullText, lines)) return null;
      if (matches(emptyText, lines)) return [];
      const rows = lines.filter((l) => l.text.trim() !== '');
      const stray = rows.filter((l) => !l.text.trim().startsWith('|'));
      for (const l of stray) report.diag('FORGE_LINE_UNEXPECTED', 'warning', `"${l.text.trim()}" is not a table row`, { line: l.line, hint: 'keep only the table in this section' });
      const table = rows.filter((l) => l.text.trim().startsWith('|'));
      if (table.length === 0) return undefined;
      const head = splitRow(table[0].text);
      const at = columnPositions(head, headers);
      if (at.byName) {
        // spec 8/10: new optional fields are backward-compatible, so a column we do not know is skipped
        head.forEach((h, i) => {
          if (!at.positions.includes(i) && h !== '') report.diag('FORGE_FIELD_UNKNOWN', 'info', `table column "${h}" is not part of the protocol; ignored`, { line: table[0].line });
        });
        columns.forEach((col, c) => {
          if (at.positions[c] < 0) report.diag('FORGE_TABLE_HEADER', 'warning', `table has no "${col.header}" column`, { line: table[0].line, hint: `add the "${col.header}" column; columns are read by their header` });
          else if (at.guessed.includes(c)) report.diag('FORGE_TABLE_HEADER', 'warning', `table column "${head[c]}" is read as "${col.header}" by its position`, { line: table[0].line, hint: `name the column "${col.header}"` });
        });
      } else if (head.length !== headers.length || head.some((h, i) => normalizeHeader(h) !== normalizeHeader(headers[i]))) {
        report.diag('FORGE_TABLE_HEADER', 'warning', `table header is "${head.join(' | ')}"; expected "${headers.join(' | ')}"`, { line: table[0].line, hint: 'no column header is recognised, so columns are read by position' });
      }
      let body = table.slice(1);
      if (body.length && splitRow(body[0].text).every((c) => SEPARATOR_CELL.test(c))) body = body.slice(1);
      else report.diag('FORGE_TABLE_HEADER', 'warning', 'table has no |---| separator row under its header', { line: table[0].line });
      const width = at.byName ? head.length : columns.length;
      const out: Record<string, unknown>[] = [];
      body.forEach((l, i) => {
        const cells = splitRow(l.text);
        if (cells.length !== width) {
          report.diag('FORGE_TABLE_ROW', 'warning', `table row has ${cells.length} cells; expected ${width}`, { line: l.line });
        }
        const row: Record<string, unknown> = {};
        columns.forEach((col, c) => {
          const position = at.positions[c];
          if (position < 0) return; // the column is not in the table: the value is absent
          const cell = cells[position] ?? '';
          if (col.kind === 'index') {
            if (cell !== String(i + 1)) report.diag('FORGE_TABLE_ROW', 'warning', `row number is "${cell}"; expected ${i + 1}`, { line: l.line });
            return;
          }
          if (col.optional && (cell === '-' || cell === '')) return;
          if (col.kind === 'int') {
            const n = readWholeNumber(cell);
            if (n !== undefined) row[col.key] = n;
            else report.diag('FORGE_VALUE_INVALID', 'error', `${col.header} "${cell}" ${wholeNumberProblem(cell)}`, { line: l.line });
            return;
          }
          if (col.enum && !isOneOf(col.enum, cell)) enumDiag(report as Reporter, `${col.header}`, cell, col.enum, l.line);
          row[col.key] = cell;
        });
        out.push(row);
      });
      return out;
    },
    render(value, where, problems) {
      if (value === null && nullText !== undefined) return [nullText];
      if (!Array.isArray(value)) {
        problems.add(`${where} must be an array of rows`, `set "${where}" to a JSON array of objects`);
        return [];
      }
      if (value.length === 0 && emptyText !== undefined) return [emptyText];
      const lines = [`| ${headers.join(' | ')} |`, `|${headers.map((h) => '-'.repeat(h.length + 2)).join('|')}|`];
      value.forEach((row, i) => {
        const at = `${where}[${i}]`;
        if (typeof row !== 'object' || row === null || Array.isArray(row)) {
          problems.add(`${at} must be an object`, `write ${at} as {${columns.filter((c) => c.kind !== 'index').map((c) => `"${c.key}": ...`).join(', ')}}`);
          return;
        }
        refuseUnknownKeys(row as Record<string, unknown>, columns.filter((c) => c.kind !== 'index').map((c) => c.key), at, problems);
        const cells = columns.map((col) => {
          if (col.kind === 'index') return String(i + 1);
          const v = (row as Record<string, unknown>)[col.key];
          if (v === undefined || v === null || v === '') {
            if (col.optional) return '-';
            problems.add(`${at}.${col.key} (${col.header}) is missing`, `set "${col.key}" in ${at}`);
            return '';
          }
          if (col.kind === 'int') {
            if (!isWholeNumber(v)) problems.add(`${at}.${col.key} must be a whole number up to ${Number.MAX_SAFE_INTEGER}`, `set "${col.key}" in ${at} to a count`);
            return String(v);
          }
          if (typeof v !== 'string') {
            problems.add(`${at}.${col.key} must be a string`, `set "${col.key}" in ${at} to a string`);
            return '';
          }
          const cell = v.trim();
          requireSingleLine(cell, `${at}.${col.key}`, problems);
          if (col.optional && cell === '-') problems.add(`${at}.${col.key} may not be "-" (that means absent)`, `omit "${col.key}" instead`);
          if (col.enum && !isOneOf(col.enum, cell)) problems.add(`${at}.${col.key} is "${cell}"; expected one of ${oneOf(col.enum)}`, `set "${col.key}" in ${at} to one of ${oneOf(col.enum)}`);
          return cell.replace(/\|/g, '\\|');
        });
        lines.push(`| ${cells.join(' | ')} |`);
      });
      return lines;
    },
    isEmpty: (value) => value === undefined || (value === null && nullText === undefined) || (Array.isArray(value) && value.length === 0 && emptyText === undefined),
  };
}
