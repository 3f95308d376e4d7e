import { DECOMPOSITION_ASSESSMENTS, isOneOf } from '../enums.js';
import { opensHiddenComment } from '../hidden-comment.js';
import { guardLines, guardOpenBlocks, oneOf, refuseUnknownKeys, requireSingleLine, valueLines } from './guard.js';
import { isWholeNumber, readWholeNumber, wholeNumberProblem } from './numbers.js';
import type { Codec, FieldSpec, Line, RenderProblems, Reporter } from './spec.js';

/** Free Markdown text; kept verbatim apart from blank edges. */
export const textCodec: Codec<string> = {
  parse: (lines) => (lines.length ? lines.map((l) => l.text).join('\n') : undefined),
  render(value, where, problems) {
    if (typeof value !== 'string') {
      problems.add(`${where} must be a string of Markdown`, `set "${where}" to a string`);
      return [];
    }
    const lines = valueLines(value);
    guardLines(lines, where, problems);
    guardOpenBlocks(lines, where, problems);
    return lines;
  },
  isEmpty: (value) => value === undefined || value === null || (typeof value === 'string' && value.trim() === ''),
};

/** `**YES** — reason` / `**NO** — reason` (Decomposition Assessment). */
export interface Assessment {
  assessment: string;
  reason: string;
}

const ASSESSMENT = /^\*\*([^*]+)\*\*\s*(?:—|–|--?)\s*([\s\S]*)$/;

export const assessmentCodec: Codec<Assessment> = {
  parse(lines, report) {
    if (!lines.length) return undefined;
    const text = lines.map((l) => l.text).join('\n');
    const m = ASSESSMENT.exec(text);
    if (!m) {
      report.diag('FORGE_VALUE_INVALID', 'error', `Decomposition Assessment "${lines[0].text.trim()}" is not "**YES** — {reason}" or "**NO** — {reason}"`, {
        line: lines[0].line,
        hint: 'write the assessment as **YES** or **NO**, an em dash, and the reason',
      });
      return undefined;
    }
    const value = { assessment: m[1].trim(), reason: m[2].trim() };
    if (!isOneOf(DECOMPOSITION_ASSESSMENTS, value.assessment)) enumDiag(report, 'Decomposition Assessment', value.assessment, DECOMPOSITION_ASSESSMENTS, lines[0].line);
    if (!value.reason) report.missing('Decomposition Assessment reason', lines[0].line, 'give the reason after the em dash');
    return value;
  },
  render(value, where, problems) {
    const v = value as Partial<Assessment> | null;
    if (typeof v !== 'object' || v === null) {
      problems.add(`${where} must be an object {"assessment": "YES"|"NO", "reason": "..."}`, `set "${where}" to {"assessment": "NO", "reason": "single-file fix"}`);
      return [];
    }
    refuseUnknownKeys(v as Record<string, unknown>, ['assessment', 'reason'], where, problems);
    if (!isOneOf(DECOMPOSITION_ASSESSMENTS, v.assessment)) {
      problems.add(`${where}.assessment is ${JSON.stringify(v.assessment)}; expected one of ${oneOf(DECOMPOSITION_ASSESSMENTS)}`, `set "${where}.assessment" to YES or NO`);
    }
    if (typeof v.reason !== 'string' || !v.reason.trim()) {
      problems.add(`${where}.reason is missing`, `set "${where}.reason" to why the issue should (not) be decomposed`);
      return [];
    }
    const lines = valueLines(`**${v.assessment}** — ${v.reason.trim()}`);
    guardLines(lines, where, problems);
    guardOpenBlocks(lines, where, problems);
    return lines;
  },
  isEmpty: (value) => value === undefined || value === null,
};

/** Reports a value outside its enum, with the allowed values in the hint. */
export function enumDiag(report: Reporter, label: string, value: string, allowed: readonly string[], line?: number): void {
  report.diag('FORGE_ENUM_INVALID', 'error', `${label} is "${value}"; expected one of ${oneOf(allowed)}`, {
    line,
    hint: `replace "${value}" with one of ${oneOf(allowed)} (exact spelling and case)`,
  });
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** True for an ISO 8601 date-time with a zone, e.g. `2026-01-15T09:30:00Z`. */
export function isIsoTimestamp(value: string): boolean {
  return ISO_8601.test(value) && !Number.isNaN(Date.parse(value));
}

/** Reads the value of a `**Label**: value` line according to its field kind; undefined when unusable. */
export function parseFieldValue(spec: FieldSpec, raw: string, line: Line, report: Reporter): unknown {
  const value = raw.trim();
  switch (spec.kind) {
    case 'code': {
      const m = /^`([^`]*)`$/.exec(value);
      if (!m) report.diag('FORGE_VALUE_NONCANONICAL', 'info', `**${spec.label}** "${value}" is not wrapped in backticks`, { line: line.line });
      return check(m ? m[1] : value);
    }
    case 'int': {
      const n = readWholeNumber(value);
      if (n === undefined) report.diag('FORGE_VALUE_INVALID', 'error', `**${spec.label}** "${value}" ${wholeNumberProblem(value)}`, { line: line.line, hint: `write **${spec.label}** as a count, e.g. 2` });
      return n;
    }
    case 'list':
      return value.split(/[,\s]+/).filter(Boolean);
    case 'iso':
      if (!isIsoTimestamp(value)) {
        report.diag('FORGE_VALUE_INVALID', 'error', `**${spec.label}** "${value}" is not an ISO 8601 timestamp`, { line: line.line, hint: 'use e.g. 2026-01-15T09:30:00Z' });
      }
      return value;
    default:
      return check(value);
  }
  function check(v: string): string {
    if (spec.enum && !isOneOf(spec.enum, v)) enumDiag(report, `**${spec.label}**`, v, spec.enum, line.line);
    return v;
  }
}

/** Writes the value part of a `**Label**: value` line, or records why it cannot. */
export function renderFieldValue(spec: FieldSpec, value: unknown, problems: RenderProblems): string | undefined {
  const where = spec.key;
  switch (spec.kind) {
    case 'int':
      if (!isWholeNumber(value)) {
        problems.add(`${where} is ${JSON.stringify(value)}; expected a whole number up to ${Number.MAX_SAFE_INTEGER}`, `set "${where}" to a count such as 2`);
        return undefined;
      }
      return String(value);
    case 'list': {
      const items = typeof value === 'string' ? value.split(/[,\s]+/).filter(Boolean) : value;
      if (!Array.isArray(items) || items.length === 0 || !items.every((x) => typeof x === 'string' && /^[^\s,]+$/.test(x))) {
        problems.add(`${where} must be a non-empty array of values without spaces or commas`, `set "${where}" to e.g. ["a1b2c3d"]`);
        return undefined;
      }
      return items.join(', ');
    }
    default: {
      if (typeof value !== 'string' || !requireSingleLine(value, where, problems)) {
        if (typeof value !== 'string') problems.add(`${where} must be a string`, `set "${where}" to a one-line string`);
        return undefined;
      }
      const v = value.trim();
      if (spec.enum && !isOneOf(spec.enum, v)) {
        problems.add(`${where} is "${v}"; expected one of ${oneOf(spec.enum)}`, `set "${where}" to one of ${oneOf(spec.enum)}`);
      }
      if (spec.kind === 'iso' && !isIsoTimestamp(v)) problems.add(`${where} "${v}" is not an ISO 8601 timestamp`, `set "${where}" to e.g. 2026-01-15T09:30:00Z`);
      // field lines form one paragraph: an open comment would hide the fields after this one
      if (spec.kind !== 'code' && opensHiddenComment(v)) problems.add(`${where} opens an HTML comment (<!--) without closing it (-->); GitHub would hide the fields after it from readers`, `close the comment, or quote "<!--" in backticks, in "${where}"`);
      if (spec.kind === 'code') {
        if (v.includes('`')) problems.add(`${where} may not contain a backtick`, `remove the backticks from "${where}"`);
        return `\`${v}\``;
      }
      return v;
    }
  }
}
