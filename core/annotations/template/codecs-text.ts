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

/**
 * ISO 8601 calendar date and time of day, in the extended (`2026-01-15T09:30:00Z`) or the basic
 * (`20260115T093000Z`) format — one format throughout —, with or without a zone (`Z`, `±hh`,
 * `±hh:mm` / `±hhmm`; none is local time), to reduced precision down to the hour, and with a
 * decimal fraction (`.` or `,`) on the lowest-order component.
 */
const ISO_EXTENDED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(?::(\d{2})(?::(\d{2}))?)?(?:[.,](\d+))?(Z|[+-]\d{2}(?::\d{2})?)?$/;
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(?:(\d{2})(\d{2})?)?(?:[.,](\d+))?(Z|[+-]\d{2}(?:\d{2})?)?$/;
const ISO_DATE = /^(\d{4})-?(\d{2})-?(\d{2})$/;

function isCalendarDate(y: string, m: string, d: string): boolean {
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

/**
 * True for an ISO 8601 date-time (see above), e.g. `2026-01-15T09:30:00Z`, `2026-01-15T09:30:00`,
 * `20260115T093000Z`, `2026-01-15T09:30:00,5Z` or `2026-01-15T09Z`. A bare date is not a date-time.
 */
export function isIsoTimestamp(value: string): boolean {
  const m = ISO_EXTENDED.exec(value) ?? ISO_BASIC.exec(value);
  if (!m) return false;
  const [, y, mo, d, hh, mm, ss, , zone] = m;
  if (!isCalendarDate(y, mo, d)) return false;
  const hour = Number(hh);
  const minute = mm === undefined ? 0 : Number(mm);
  const second = ss === undefined ? 0 : Number(ss);
  // 24:00 (end of day) only as 24, 24:00 or 24:00:00 without a fraction; 60 is a leap second
  if (hour === 24 ? minute !== 0 || second !== 0 || m[7] !== undefined : hour > 23) return false;
  if (minute > 59 || second > 60) return false;
  if (zone && zone !== 'Z') {
    const zh = Number(zone.slice(1, 3));
    const zm = zone.length > 3 ? Number(zone.slice(-2)) : 0;
    if (zh > 23 || zm > 59) return false;
  }
  return true;
}

/** True for an ISO 8601 calendar date without a time, `2026-01-15` or `20260115`. */
export function isIsoDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  return m !== null && (value.length === 8 || value.length === 10) && isCalendarDate(m[1], m[2], m[3]);
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
      if (isIsoDate(value)) {
        report.diag('FORGE_VALUE_NONCANONICAL', 'warning', `**${spec.label}** "${value}" is a date without a time of day`, { line: line.line, hint: 'use a date-time, e.g. 2026-01-15T09:30:00Z' });
      } else if (!isIsoTimestamp(value)) {
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
