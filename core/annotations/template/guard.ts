import { scanBlocks } from '../code-blocks.js';
import { opensHiddenComment } from '../hidden-comment.js';
import { isProtocolSentinel } from '../tags.js';
import { classifyLine } from '../tokenize.js';
import type { Line, RenderProblems } from './spec.js';

/** Splits at CRLF, CR and LF, as the parser does: a lone CR ends a line on GitHub too. */
export function splitValue(value: string): string[] {
  return value.split(/\r\n?|\n/);
}

/**
 * Drops trailing whitespace from each line, except a Markdown hard line break: two or more spaces
 * at the end of a line that a non-blank line follows (that run of spaces is kept, so it renders and
 * parses back as written). Whitespace-only lines become empty. Render and parse both use this, so
 * the result is stable under render -> parse -> render.
 */
export function trimLineEnds(lines: readonly string[]): string[] {
  const trimmed = lines.map((l) => l.trimEnd());
  return trimmed.map((t, i) => {
    if (t === '' || i + 1 >= trimmed.length || trimmed[i + 1] === '') return t;
    const spaces = trailingSpaces(lines[i]);
    return spaces >= 2 ? t + ' '.repeat(spaces) : t;
  });
}

/**
 * How many spaces end `line`, counted from its end. A regex such as `/ {2,}$/` retries at every
 * space of a run that is not at the end (leading indentation, `N spaces + x`): quadratic in the run.
 */
function trailingSpaces(line: string): number {
  let n = 0;
  while (n < line.length && line.charCodeAt(line.length - 1 - n) === 0x20) n++;
  return n;
}

/** Splits a value into lines and drops blank lines at both ends (parse does the same). */
export function valueLines(value: string): string[] {
  const lines = trimLineEnds(splitValue(value));
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start] === '') start++;
  while (end > start && lines[end - 1] === '') end--;
  // the last line kept is followed by nothing: a hard line break there means nothing
  return trimLineEnds(lines.slice(start, end));
}

/** Drops blank lines at both ends of parsed content and trailing whitespace of each line but hard line breaks. */
export function trimBlankEdges(lines: Line[]): Line[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].text.trim() === '') start++;
  while (end > start && lines[end - 1].text.trim() === '') end--;
  const kept = lines.slice(start, end);
  const texts = trimLineEnds(kept.map((l) => l.text));
  return kept.map((l, i) => ({ ...l, text: texts[i] }));
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * The text of a CommonMark ATX heading of exactly `level` hashes, or null when `line` is not one:
 * 0-3 spaces of indentation (4 are code), then the hashes, then a space, a tab or the end of the
 * line (`###Text` is a paragraph); an optional closing run of `#` after a space or tab is dropped
 * (`### Root Cause ###`). A scan, not a regex: `[ \t]+#+` after a lazy `(.*?)` is quadratic on
 * a long run of spaces.
 */
export function atxHeading(line: string, level: number): string | null {
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  let hashes = 0;
  while (line[i + hashes] === '#') hashes++;
  if (hashes !== level) return null;
  i += hashes;
  if (i < line.length && !isBlank(line[i])) return null;
  let end = line.length;
  while (end > i && isBlank(line[end - 1])) end--;
  let close = end;
  while (close > i && line[close - 1] === '#') close--;
  // a closing sequence is preceded by a space or tab, or is all there is
  if (close < end && (close === i || isBlank(line[close - 1]))) end = close;
  return line.slice(i, end).trim();
}

/** A `### ` heading (exactly three hashes) starts a section, so content may not contain such a line. */
export function sectionHeading(line: string): string | null {
  return atxHeading(line, 3);
}

/**
 * Refuses content lines that the parser would read as structure: a FORGE tag or sentinel (it would
 * end or close the annotation) or a `### ` heading (it would start a new section); a line that
 * still holds a CR (the parser and GitHub end the line there, so the rest would escape this check);
 * and a line opening an HTML comment it does not close (GitHub would hide what follows from
 * readers while agents still read it).
 */
export function guardLines(lines: readonly string[], where: string, problems: RenderProblems): void {
  for (const [i, text] of lines.entries()) {
    if (text.includes('\r')) {
      problems.add(`${where}: line ${i + 1} contains a carriage return, which ends the line on GitHub`, `use \\n line breaks in ${where}`);
      continue;
    }
    const t = classifyLine(text, i + 1);
    if (opensHiddenComment(text)) {
      problems.add(`${where}: line ${i + 1} "${text.trim().slice(0, 80)}" opens an HTML comment (<!--) without closing it (-->) on the same line; GitHub would hide the text after it from readers`, `close the comment on the same line, or quote "<!--" in backticks, in ${where}`);
    } else if (t.kind !== 'text' && (t.kind !== 'sentinel' || isProtocolSentinel(t.name))) {
      problems.add(`${where}: line ${i + 1} "${text.trim()}" would be read as a FORGE tag`, `remove the tag from ${where}, or quote it inline with backticks`);
    } else if (sectionHeading(text) !== null) {
      problems.add(`${where}: line ${i + 1} "${text.trim()}" would start a new ### section`, `use a #### heading inside ${where}`);
    }
  }
}

/**
 * Refuses free text that leaves a code fence or an HTML block open: GitHub (and the parser) would
 * read the rest of the comment, later sections and the sentinel included, as its content.
 */
export function guardOpenBlocks(lines: readonly string[], where: string, problems: RenderProblems): void {
  const { open } = scanBlocks(lines);
  if (open === 'fence') problems.add(`${where} opens a code fence (\`\`\` or ~~~) that it does not close`, `close the code block in ${where}`);
  else if (open === 'html') problems.add(`${where} opens an HTML block that it does not close`, `close the HTML element or comment in ${where}`);
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
