import { appendAll } from '../append.js';
import { ACCEPTANCE_RESULTS, isOneOf } from '../enums.js';
import { guardLines, oneOf, refuseUnknownKeys, splitValue } from './guard.js';
import { isWholeNumber, readWholeNumber, wholeNumberProblem } from './numbers.js';
import type { Codec, Line, RenderProblems, Reporter } from './spec.js';
import { enumDiag } from './codecs-text.js';

/**
 * Markdown lists. An item starts with `- ` (or `* `) or `N. ` at the start of a line; following
 * indented lines continue it (the marker's width of indentation is removed, so nesting survives).
 */

export interface ItemCodec<T> {
  /** `text` is the item without its marker; continuation lines are joined with "\n" */
  parse(text: string, line: number, report: Reporter): T | undefined;
  /** the item text without its marker, or undefined after recording a problem */
  render(item: unknown, where: string, problems: RenderProblems): string | undefined;
}

const BULLET = /^[-*]\s+(.*)$/;
const NUMBERED = /^(\d+)\.\s+(.*)$/;

function listCodec<T>(style: 'bullet' | 'number', item: ItemCodec<T>): Codec<T[]> {
  return {
    parse(lines, report) {
      const raw: { text: string; line: number; indent: number }[] = [];
      for (const l of lines) {
        if (l.text.trim() === '') continue;
        const m = style === 'bullet' ? BULLET.exec(l.text) : NUMBERED.exec(l.text);
        if (m) {
          const text = style === 'bullet' ? m[1] : m[2];
          raw.push({ text: text.trim(), line: l.line, indent: l.text.length - text.length });
        } else if (/^\s/.test(l.text) && raw.length) {
          const last = raw[raw.length - 1];
          const strip = Math.min(last.indent, l.text.length - l.text.trimStart().length);
          // trailing spaces are dropped as render drops them: list items carry no hard line breaks
          last.text += '\n' + l.text.slice(strip).trimEnd();
        } else {
          report.diag('FORGE_LINE_UNEXPECTED', 'warning', `"${l.text.trim()}" is not a list item`, { line: l.line, hint: style === 'bullet' ? 'start list items with "- "' : 'start list items with "1. "' });
        }
      }
      const items: T[] = [];
      for (const r of raw) {
        const v = item.parse(r.text, r.line, report);
        if (v !== undefined) items.push(v);
      }
      return items.length ? items : undefined;
    },
    render(value, where, problems) {
      if (!Array.isArray(value)) {
        problems.add(`${where} must be an array`, `set "${where}" to a JSON array`);
        return [];
      }
      const out: string[] = [];
      value.forEach((v, i) => {
        const text = item.render(v, `${where}[${i}]`, problems);
        if (text === undefined) return;
        const marker = style === 'bullet' ? '- ' : `${i + 1}. `;
        // CR too: a lone CR left inside one line would let that line escape guardLines
        const [first, ...rest] = splitValue(text).filter((l) => l.trim() !== '');
        const lines = [marker + (first ?? '').trim(), ...rest.map((l) => (' '.repeat(marker.length) + l).trimEnd())];
        guardLines(lines, `${where}[${i}]`, problems);
        appendAll(out, lines);
      });
      return out;
    },
    isEmpty: (value) => value === undefined || value === null || (Array.isArray(value) && value.length === 0),
  };
}

const stringItem: ItemCodec<string> = {
  parse: (text) => text,
  render(item, where, problems) {
    if (typeof item !== 'string' || !item.trim()) {
      problems.add(`${where} must be a non-empty string`, `set ${where} to the item text`);
      return undefined;
    }
    return item;
  },
};

/** `1. item` */
export const numberedCodec = (): Codec<string[]> => listCodec('number', stringItem);
/** `- item` */
export const bulletCodec = (): Codec<string[]> => listCodec('bullet', stringItem);

/** Splits `text — note` at the first dash separator (em dash preferred). */
function splitDash(text: string): [string, string | undefined] {
  for (const sep of [' — ', ' – ', ' -- ']) {
    const at = text.indexOf(sep);
    if (at >= 0) return [text.slice(0, at).trim(), text.slice(at + sep.length).trim()];
  }
  return [text.trim(), undefined];
}

function str(obj: unknown, key: string, where: string, problems: RenderProblems, required = true): string | undefined {
  const v = (obj as Record<string, unknown> | null)?.[key];
  if (v === undefined || v === null || v === '') {
    if (required) problems.add(`${where}.${key} is missing`, `set "${key}" in ${where}`);
    return undefined;
  }
  if (typeof v !== 'string') {
    problems.add(`${where}.${key} must be a string`, `set "${key}" in ${where} to a string`);
    return undefined;
  }
  return v.trim();
}

function isObject(item: unknown, where: string, problems: RenderProblems, keys: readonly string[]): item is Record<string, unknown> {
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    refuseUnknownKeys(item as Record<string, unknown>, keys, where, problems);
    return true;
  }
  problems.add(`${where} must be an object`, `write ${where} as a JSON object`);
  return false;
}

/** `- #{NUMBER}: {TITLE}` -> { number, title } */
export const subIssuesCodec = (): Codec<{ number: number; title: string }[]> =>
  listCodec('bullet', {
    parse(text, line, report) {
      const m = /^#(\d+):\s*([\s\S]*)$/.exec(text);
      if (!m) {
        report.diag('FORGE_VALUE_INVALID', 'error', `sub-issue "${text.split('\n')[0]}" does not start with "#" and an issue number`, { line, hint: 'write sub-issues as "- #12: Title"' });
        return undefined;
      }
      const number = readWholeNumber(m[1]);
      if (number === undefined) {
        report.diag('FORGE_VALUE_INVALID', 'error', `sub-issue number "${m[1]}" ${wholeNumberProblem(m[1])}`, { line });
        return undefined;
      }
      return { number, title: m[2].trim() };
    },
    render(item, where, problems) {
      if (!isObject(item, where, problems, ['number', 'title'])) return undefined;
      const title = str(item, 'title', where, problems);
      if (!isWholeNumber(item.number, 1)) problems.add(`${where}.number must be an issue number (a positive whole number up to ${Number.MAX_SAFE_INTEGER})`, `set "number" in ${where}`);
      return title === undefined ? undefined : `#${item.number as number}: ${title}`;
    },
  });

/** `- \`{filepath}\` — {note}` -> { file, [noteKey] } */
export const fileNotesCodec = (noteKey: string): Codec<Record<string, string>[]> =>
  listCodec('bullet', {
    parse(text, line, report) {
      const m = /^`([^`]+)`\s*(?:—|–|--?)\s*([\s\S]*)$/.exec(text);
      if (m) return { file: m[1], [noteKey]: m[2].trim() };
      const [file, note] = splitDash(text);
      report.diag('FORGE_VALUE_NONCANONICAL', 'warning', `"${text.split('\n')[0]}" is not "\`{filepath}\` — {${noteKey}}"`, { line, hint: 'wrap the path in backticks and separate the note with an em dash' });
      return { file, [noteKey]: note ?? '' };
    },
    render(item, where, problems) {
      if (!isObject(item, where, problems, ['file', noteKey])) return undefined;
      const file = str(item, 'file', where, problems);
      const note = str(item, noteKey, where, problems);
      if (file?.includes('`')) problems.add(`${where}.file may not contain a backtick`, 'remove backticks from the path');
      return file === undefined || note === undefined ? undefined : `\`${file}\` — ${note}`;
    },
  });

/** `1. {step} — {why}` -> { step, why? } */
export const stepsCodec = (): Codec<{ step: string; why?: string }[]> =>
  listCodec('number', {
    parse(text) {
      const [step, why] = splitDash(text);
      return why === undefined ? { step } : { step, why };
    },
    render(item, where, problems) {
      if (!isObject(item, where, problems, ['step', 'why'])) return undefined;
      const step = str(item, 'step', where, problems);
      const why = str(item, 'why', where, problems, false);
      if (step !== undefined && splitDash(step)[1] !== undefined) problems.add(`${where}.step may not contain " — "`, 'put the reason in "why"');
      return step === undefined ? undefined : why ? `${step} — ${why}` : step;
    },
  });

const CHECK = /^\[([ xX])\]\s+([\s\S]*)$/;

/** `- [ ] {text}` / `- [x] {text}` -> { checked, text } */
export const checklistCodec = (): Codec<{ checked: boolean; text: string }[]> =>
  listCodec('bullet', {
    parse(text, line, report) {
      const m = CHECK.exec(text);
      if (!m) {
        report.diag('FORGE_VALUE_NONCANONICAL', 'warning', `"${text.split('\n')[0]}" is not a checklist item "[ ] ..." or "[x] ..."`, { line });
        return { checked: false, text };
      }
      return { checked: m[1] !== ' ', text: m[2].trim() };
    },
    render(item, where, problems) {
      if (!isObject(item, where, problems, ['checked', 'text'])) return undefined;
      const text = str(item, 'text', where, problems);
      if (typeof item.checked !== 'boolean') problems.add(`${where}.checked must be true or false`, `set "checked" in ${where}`);
      return text === undefined ? undefined : `[${item.checked === true ? 'x' : ' '}] ${text}`;
    },
  });

export interface AcceptanceStatus {
  checked: boolean;
  criterion: string;
  result?: string;
  reason?: string;
}

/**
 * ` — RESULT` (any upper-case word after an em/en dash, only PASS/FAIL after a hyphen), then an
 * optional `(reason)` without nested parentheses, to the end. Unanchored at the start and without
 * a lazy prefix, so hostile input stays linear; the criterion is everything before the match.
 */
const RESULT = /\s(?:(?:—|–)\s+([A-Z][A-Z_]*)|--?\s+(PASS|FAIL))(?:\s*\(([^()]*)\))?$/;

/** `- [x] {criterion} — PASS` / `- [ ] {criterion} — FAIL (reason)` */
export const acceptanceCodec = (): Codec<AcceptanceStatus[]> =>
  listCodec('bullet', {
    parse(text, line, report) {
      const c = CHECK.exec(text);
      const body = c ? c[2].trim() : text;
      if (!c) report.diag('FORGE_VALUE_NONCANONICAL', 'warning', `"${text.split('\n')[0]}" is not a checklist item`, { line });
      const m = RESULT.exec(body);
      const item: AcceptanceStatus = { checked: c ? c[1] !== ' ' : false, criterion: m ? body.slice(0, m.index).trim() : body };
      if (!m) {
        report.diag('FORGE_FIELD_MISSING', 'warning', `acceptance criterion "${item.criterion.split('\n')[0]}" has no "— PASS" or "— FAIL (reason)"`, { line });
        return item;
      }
      item.result = m[1] ?? m[2];
      if (m[3] !== undefined) item.reason = m[3].trim();
      if (!isOneOf(ACCEPTANCE_RESULTS, item.result)) enumDiag(report, 'Acceptance result', item.result, ACCEPTANCE_RESULTS, line);
      else if (item.checked !== (item.result === 'PASS')) {
        report.diag('FORGE_STATUS_INCONSISTENT', 'warning', `criterion is ${item.checked ? 'checked' : 'unchecked'} but marked ${item.result}`, { line, hint: 'check [x] exactly the criteria that PASS' });
      }
      return item;
    },
    render(item, where, problems) {
      if (!isObject(item, where, problems, ['checked', 'criterion', 'result', 'reason'])) return undefined;
      const criterion = str(item, 'criterion', where, problems);
      const reason = str(item, 'reason', where, problems, false);
      if (reason && /[()]/.test(reason)) problems.add(`${where}.reason may not contain parentheses`, 'reword the reason without ( or )');
      if (!isOneOf(ACCEPTANCE_RESULTS, item.result)) {
        problems.add(`${where}.result is ${JSON.stringify(item.result)}; expected one of ${oneOf(ACCEPTANCE_RESULTS)}`, `set "result" in ${where}`);
        return undefined;
      }
      const checked = item.checked === undefined ? item.result === 'PASS' : item.checked === true;
      return criterion === undefined ? undefined : `[${checked ? 'x' : ' '}] ${criterion} — ${item.result}${reason ? ` (${reason})` : ''}`;
    },
  });

export type { Line };
