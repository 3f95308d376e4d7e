import { isProtocolSentinel } from '../tags.js';
import { classifyLine } from '../tokenize.js';
import type { Line, RenderProblems } from './spec.js';

/** Splits a value into lines and drops blank lines at both ends (parse does the same). */
export function valueLines(value: string): string[] {
  const lines = value.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd());
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start] === '') start++;
  while (end > start && lines[end - 1] === '') end--;
  return lines.slice(start, end);
}

/** Drops blank lines at both ends of parsed content and trailing whitespace of each line. */
export function trimBlankEdges(lines: Line[]): Line[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].text.trim() === '') start++;
  while (end > start && lines[end - 1].text.trim() === '') end--;
  return lines.slice(start, end).map((l) => ({ line: l.line, text: l.text.trimEnd() }));
}

/** `### ` (exactly three hashes) starts a section, so content may not contain such a line. */
export const SECTION_HEADING = /^###(?!#)\s*(.*)$/;

/**
 * Refuses content lines that the parser would read as structure: a FORGE tag or sentinel (it would
 * end or close the annotation) or a `### ` heading (it would start a new section).
 */
export function guardLines(lines: readonly string[], where: string, problems: RenderProblems): void {
  for (const [i, text] of lines.entries()) {
    const t = classifyLine(text, i + 1);
    if (t.kind !== 'text' && (t.kind !== 'sentinel' || isProtocolSentinel(t.name))) {
      problems.add(`${where}: line ${i + 1} "${text.trim()}" would be read as a FORGE tag`, `remove the tag from ${where}, or quote it inline with backticks`);
    } else if (SECTION_HEADING.test(text)) {
      problems.add(`${where}: line ${i + 1} "${text.trim()}" would start a new ### section`, `use a #### heading inside ${where}`);
    }
  }
}

/** Refuses a value that must fit on one line (header fields, table cells, list items). */
export function requireSingleLine(value: string, where: string, problems: RenderProblems): boolean {
  if (/[\r\n]/.test(value)) {
    problems.add(`${where} must be a single line`, `remove the line breaks from ${where}`);
    return false;
  }
  return true;
}

/** Refuses keys of a data object that the template does not know (catches typos such as "verdcit"). */
export function refuseUnknownKeys(obj: Record<string, unknown>, allowed: readonly string[], where: string, problems: RenderProblems): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) problems.add(`${where} has unknown key "${k}"`, `${where} accepts ${allowed.join(', ')}`);
  }
}

/** A human list of allowed values: `CONFIRMED, PARTIAL, INVALID`. */
export function oneOf(values: readonly string[]): string {
  return values.join(', ');
}
