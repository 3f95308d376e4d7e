import type { Annotation } from './types.js';

/** The diagnostic of a line that opens an HTML comment it does not close (see opensHiddenComment). */
export const HIDDEN_CONTENT = 'FORGE_COMMENT_UNCLOSED';

/**
 * True when part of the annotation's body is hidden from readers by an unclosed `<!--`: anyone
 * who can comment can post a whole annotation that GitHub does not show. Such an annotation never
 * decides the stage the labels are checked against, and `check` fails it (the diagnostic is an error).
 */
export function hasHiddenContent(a: Annotation): boolean {
  return a.diagnostics.some((d) => d.code === HIDDEN_CONTENT);
}

/**
 * True when `line` opens an HTML comment that it does not close. GitHub hides everything from
 * `<!--` to the next `-->`: to the end of the paragraph when the comment is inside text, and across
 * any number of lines, headings and fields when the line starts with it (CommonMark HTML block
 * type 2), while agents still read those lines as annotation content. A `<!--` inside a code span
 * is literal text. Linear in the line.
 */
export function opensHiddenComment(line: string): boolean {
  if (!line.includes('<!--')) return false;
  const runs = backtickRuns(line);
  /** per run length, how many of its runs lie behind the scan */
  const passed = new Map<number, number>();
  let i = 0;
  while (i < line.length) {
    if (line[i] === '`') {
      const length = runLength(line, i);
      // a code span closes at the next run of exactly the same length
      const starts = runs.get(length)!;
      let k = passed.get(length) ?? 0;
      while (k < starts.length && starts[k] <= i) k++;
      passed.set(length, k);
      i = k < starts.length ? starts[k] + length : i + length;
      continue;
    }
    if (line.startsWith('<!--', i)) {
      // from i + 2: `<!-->` is a complete (empty) comment
      const end = line.indexOf('-->', i + 2);
      if (end < 0) return true;
      i = end + 3;
      continue;
    }
    i++;
  }
  return false;
}

function runLength(line: string, at: number): number {
  let n = 0;
  while (line[at + n] === '`') n++;
  return n;
}

/** Start of every backtick run, by run length, in order. */
function backtickRuns(line: string): Map<number, number[]> {
  const runs = new Map<number, number[]>();
  for (let i = line.indexOf('`'); i >= 0; ) {
    const n = runLength(line, i);
    const list = runs.get(n);
    if (list) list.push(i);
    else runs.set(n, [i]);
    i = line.indexOf('`', i + n);
  }
  return runs;
}
