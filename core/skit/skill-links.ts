import type { Diagnostic } from '../errors/diagnostic.js';
import { ancestors } from './file-index.js';
import { diagnostic } from './rules.js';
import { isWithin } from './safe-path.js';

/**
 * Relative Markdown links in a SKILL.md body must stay inside the skill's own directory: once
 * installed, a skill sees only its directory and its shared mappings, so `../sibling/x.md` breaks
 * and reaches into another skill. Inline links and images (their text may nest brackets and span
 * lines, their destination may start on the next line), reference definitions and HTML `href` /
 * `src` attributes are checked; fenced code blocks (closed only by a fence of the same character
 * and at least the same length), code spans, URLs with a scheme, fragments and absolute paths are
 * skipped. Pure.
 */

// link text: brackets nest one level, backslash escapes; destination: <...> or a bare run with
// balanced parentheses. Every repetition is bounded: a hostile SKILL.md of unclosed brackets would
// otherwise cost time quadratic in its size (validation reads files of up to 16 MiB). So a link
// text over 999 characters, or a destination over 4096, is not seen as a link.
const INLINE = /!?\[(?:[^[\]\\]|\\.|\[(?:[^[\]\\]|\\.){0,999}\]){0,999}\]\(\s{0,99}(?:<([^<>\n]{0,4096})>|((?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.){0,4096}\)){1,4096}))/g;
// a definition's destination may sit on the next line
const REFERENCE = /^ {0,3}\[(?:[^[\]\\]|\\.){1,999}\]:[ \t]*\n?[ \t]*(?:<([^<>\n]{0,4096})>|(\S{1,4096}))/gm;
const HTML_LINK = /<(?:a|img|link|source|script|iframe)\b[^>]{0,999}?\s(?:href|src)\s*=\s*(?:"([^"]{0,4096})"|'([^']{0,4096})'|([^\s"'>]{1,4096}))/gi;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

export function checkSkillLinks(body: string, bodyLine: number, skillPath: string, file: string, skillPaths: ReadonlySet<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const block of proseBlocks(body.split('\n'))) {
    const text = withoutCodeSpans(block.lines.join('\n'));
    const starts = lineStarts(text);
    const targets: [string, number][] = [];
    for (const m of text.matchAll(INLINE)) targets.push([m[1] ?? m[2], m.index ?? 0]);
    for (const m of text.matchAll(REFERENCE)) targets.push([m[1] ?? m[2], m.index ?? 0]);
    for (const m of text.matchAll(HTML_LINK)) targets.push([m[1] ?? m[2] ?? m[3], m.index ?? 0]);
    for (const [raw, offset] of targets.sort((a, b) => a[1] - b[1])) {
      const target = raw.replace(/\\(.)/g, '$1');
      const problem = escapes(target, skillPath, skillPaths);
      if (!problem) continue;
      const row = lastAtOrBefore(starts, offset);
      out.push(diagnostic('SKIT_SKILL_TRAVERSAL', `link "${target}" ${problem}`, { file, line: bodyLine + block.first + row, column: offset - starts[row] + 1 }));
    }
  }
  return out;
}

/** Runs of lines outside fenced code blocks, split at blank lines (a link never crosses one). */
function proseBlocks(lines: readonly string[]): { first: number; lines: string[] }[] {
  const blocks: { first: number; lines: string[] }[] = [];
  let current: { first: number; lines: string[] } | null = null;
  let fence: { char: string; length: number } | null = null;
  lines.forEach((line, i) => {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length) fence = null;
      return;
    }
    const open = FENCE_OPEN.exec(line);
    // a backtick fence's info string may not hold a backtick (then it is a code span)
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      fence = { char: open[1][0], length: open[1].length };
      current = null;
      return;
    }
    if (line.trim() === '') {
      current = null;
      return;
    }
    if (!current) blocks.push((current = { first: i, lines: [] }));
    current.lines.push(line);
  });
  return blocks;
}

/** `text` with every code span blanked out (same length, so offsets still point into the text). */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`{1,99})([\s\S]{0,9999}?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Index of the last element of sorted `starts` that is <= `offset`. */
function lastAtOrBefore(starts: readonly number[], offset: number): number {
  let row = 0;
  while (row + 1 < starts.length && starts[row + 1] <= offset) row++;
  return row;
}

/** Why a link target leaves the skill directory, or null when it stays inside (or is not a path). */
function escapes(target: string, skillPath: string, skillPaths: ReadonlySet<string>): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/') || target.startsWith('\\')) return null;
  let path = target.replace(/[?#].*$/, '');
  try {
    path = decodeURI(path);
  } catch (e) {
    if (!(e instanceof URIError)) throw e;
  }
  const stack = skillPath === '' ? [] : skillPath.split('/');
  for (const seg of path.split(/[/\\]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..') stack.push(seg);
    else if (stack.length === 0) return 'points outside the SKIT';
    else stack.pop();
  }
  const resolved = stack.join('/');
  if (isWithin(resolved, skillPath)) return null;
  const owner = [...ancestors(resolved), resolved].find((a) => skillPaths.has(a));
  return owner ? `reaches into the sibling skill at ${owner}` : `points outside the skill directory (to ${resolved || 'the SKIT root'})`;
}
