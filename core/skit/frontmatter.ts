import { parsePlainYaml } from './yaml-plain.js';
import { yamlLib } from './yaml-lib.js';
import { lineIndexOf, YamlPositions, type Position } from './yaml-positions.js';

/**
 * YAML frontmatter of README.md and SKILL.md: a first line `---`, YAML, a closing line `---`.
 * A real YAML parser reads the block, so a value containing `---` is kept whole (skills-ref cuts it).
 * Pure: text in, data and problems (with 1-based file positions) out.
 */

export type FrontmatterProblemKind = 'bom' | 'missing' | 'unclosed' | 'too-large' | 'yaml' | 'not-mapping';

export interface FrontmatterProblem extends Position {
  kind: FrontmatterProblemKind;
  message: string;
}

export interface Frontmatter {
  /** the parsed YAML as plain JS; `{}` for an empty block; may be a non-mapping (see problems) */
  data: unknown;
  /** file positions of JSON pointers into `data` */
  positions: YamlPositions;
  /** the Markdown after the closing `---` line */
  body: string;
  /** 1-based line number of the first body line */
  bodyLine: number;
}

export interface FrontmatterParse {
  /** absent when there is no block, it is unclosed, or its YAML is invalid */
  frontmatter?: Frontmatter;
  problems: FrontmatterProblem[];
}

const DELIMITER = /^---[ \t]*$/;

/**
 * The frontmatter, from the opening line through the closing `---` line, must end within this
 * many bytes of the start of the file (the BOM counted). One limit for everyone: validation reads
 * the whole file, source discovery reads only this window (plus one byte), and both see the same
 * block or the same "too large" problem.
 */
export const MAX_FRONTMATTER_BYTES = 1024 * 1024;
const TOO_LARGE = `the YAML frontmatter is larger than 1 MiB: no closing "---" line within the first ${MAX_FRONTMATTER_BYTES} bytes of the file`;
/** Aliases expanded beyond this are treated as a resource-exhaustion attempt. */
const MAX_ALIAS_COUNT = 100;

/** True when `text` (after an optional BOM) opens with a `---` line. */
export function hasFrontmatter(text: string): boolean {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  return DELIMITER.test(firstLine(src, 0).text);
}

/** Splits and parses the frontmatter of `text`. CRLF line ends are accepted; a BOM is reported. */
export function parseFrontmatter(text: string): FrontmatterParse {
  const problems: FrontmatterProblem[] = [];
  let src = text;
  if (src.startsWith('\uFEFF')) {
    problems.push({ kind: 'bom', message: 'the file starts with a UTF-8 byte-order mark', line: 1, column: 1 });
    src = src.slice(1);
  }
  const opening = firstLine(src, 0);
  if (!DELIMITER.test(opening.text)) {
    problems.push({ kind: 'missing', message: 'the file does not start with a YAML frontmatter line "---"', line: 1, column: 1 });
    return { problems };
  }
  const pastLimit = byteLimit(src, text.length - src.length === 1 ? 3 : 0);
  let pos = opening.next;
  for (let lineNo = 2; pos < src.length; lineNo++) {
    const line = firstLine(src, pos);
    if (pastLimit(pos + line.text.length)) break;
    if (DELIMITER.test(line.text)) return finish(src.slice(opening.next, pos), src.slice(line.next), lineNo, problems);
    pos = line.next;
  }
  // no closing line within the limit, and the text goes on past it (so does the window discovery reads)
  if (pastLimit(src.length)) {
    problems.push({ kind: 'too-large', message: TOO_LARGE, line: 1, column: 1 });
    return { problems };
  }
  problems.push({ kind: 'unclosed', message: 'the YAML frontmatter is not closed by a "---" line', line: 1, column: 1 });
  return { problems };
}

/**
 * A test of whether `src` up to a code-unit index (asked in increasing order) is more than
 * MAX_FRONTMATTER_BYTES bytes of UTF-8 after `offset` bytes; bytes are counted only near the limit.
 */
function byteLimit(src: string, offset: number): (end: number) => boolean {
  let counted = offset;
  let countedTo = 0;
  return (end) => {
    // a UTF-16 code unit is 1 to 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4)
    if (offset + end * 3 <= MAX_FRONTMATTER_BYTES) return false;
    if (end > MAX_FRONTMATTER_BYTES) return true;
    counted += Buffer.byteLength(src.slice(countedTo, end));
    countedTo = end;
    return counted > MAX_FRONTMATTER_BYTES;
  };
}

function finish(yamlText: string, body: string, closeLine: number, problems: FrontmatterProblem[]): FrontmatterParse {
  // most frontmatter is plain YAML, read without the yaml library (its first run is ~10 ms cold,
  // and even loading it costs a few ms: see yaml-lib.ts)
  const plain = parsePlainYaml(yamlText);
  if (plain) {
    return { frontmatter: { data: plain.data, positions: new YamlPositions(plain.offsets, lineIndexOf(yamlText), 1), body, bodyLine: closeLine + 1 }, problems };
  }
  try {
    return finishWithLibrary(yamlText, body, closeLine, problems);
  } catch (e) {
    // the yaml library recurses per level: thousands of levels overflow the stack
    if (!(e instanceof RangeError)) throw e;
    problems.push({ kind: 'yaml', message: `the YAML frontmatter nests too deeply (at most ${MAX_DEPTH} levels)`, line: 2, column: 1 });
    return { problems };
  }
}

/** Levels of nested mappings and lists allowed in frontmatter, as the Agent Skills reference validator allows. */
const MAX_DEPTH = 100;

function finishWithLibrary(yamlText: string, body: string, closeLine: number, problems: FrontmatterProblem[]): FrontmatterParse {
  const { LineCounter, isPair, isScalar, parseDocument, visit } = yamlLib();
  const lines = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lines, merge: true, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number | undefined): Position => {
    const { line, col } = lines.linePos(offset ?? 0);
    return { line: line + 1, column: col };
  };
  for (const e of [...doc.errors, ...doc.warnings]) {
    const overflow = /call stack/i.test(e.message);
    problems.push({ kind: 'yaml', message: overflow ? `the YAML frontmatter nests too deeply (at most ${MAX_DEPTH} levels)` : firstSentence(e.message), ...at(e.pos[0]) });
  }
  // object keys must be scalars: a mapping or list used as a key cannot become a JSON object key
  visit(doc, {
    Pair(_, pair) {
      if (isPair(pair) && pair.key !== null && !isScalar(pair.key)) {
        const range = (pair.key as { range?: [number, number, number] }).range;
        problems.push({ kind: 'yaml', message: 'a mapping key must be a plain scalar, not a collection', ...at(range?.[0]) });
      }
    },
  });
  if (problems.some((p) => p.kind === 'yaml')) return { problems };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (e) {
    problems.push({ kind: 'yaml', message: e instanceof Error ? e.message : String(e), line: 2, column: 1 });
    return { problems };
  }
  const depth = depthOf(data);
  if (depth > MAX_DEPTH) {
    problems.push({ kind: 'yaml', message: `the YAML frontmatter nests more than ${MAX_DEPTH} levels deep`, line: 2, column: 1 });
    return { problems };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Uint8Array) {
    problems.push({ kind: 'not-mapping', message: 'the YAML frontmatter must be a mapping of keys to values', line: 2, column: 1 });
  }
  const positions = YamlPositions.fromDocument(doc, lines, 1);
  return { frontmatter: { data, positions, body, bodyLine: closeLine + 1 }, problems };
}

/** Levels of nested objects and arrays in `value`, counted without recursion (it may be thousands deep). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, level] = stack.pop()!;
    if (typeof v !== 'object' || v === null || v instanceof Uint8Array) continue;
    deepest = Math.max(deepest, level + 1);
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Array.isArray(v) ? v : v instanceof Map ? v.values() : Object.values(v)) stack.push([child, level + 1]);
  }
  return deepest;
}

/** The line starting at `pos` without its line end, and the offset after its line end. */
function firstLine(src: string, pos: number): { text: string; next: number } {
  const nl = src.indexOf('\n', pos);
  const end = nl === -1 ? src.length : nl;
  const text = src.slice(pos, end);
  return { text: text.endsWith('\r') ? text.slice(0, -1) : text, next: nl === -1 ? src.length : nl + 1 };
}

const firstSentence = (message: string) => message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
