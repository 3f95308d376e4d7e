import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { repoRoot } from '../../test-support/index.js';
import { sourceFiles } from '../../test-support/source-files.js';

/**
 * The README promises that every user-facing error says how to fix it: each `new SfError(...)` in
 * the source must pass a `hint`, except SF_E_INTERNAL (a bug in Forge, nothing for the user to fix).
 */

const SCANNED_DIRS = ['core', 'cli', 'hub', 'adapters'];

const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

/**
 * The source with the text of comments, string literals, template literal chunks and regular
 * expression literals replaced by spaces (same length, newlines kept, quotes kept), so parentheses,
 * commas and words inside them cannot be mistaken for code. `${...}` expressions stay code.
 */
export function maskSource(src: string): string {
  const out = src.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  // each entry: a `{` opened in code ('brace') or a template `${` ('template')
  const braces: ('brace' | 'template')[] = [];
  let i = 0;
  const n = src.length;
  const scanTemplate = (): void => {
    // at the character after a ` or after the } closing a ${ }
    const start = i;
    while (i < n) {
      const ch = src[i];
      if (ch === '\\') i += 2;
      else if (ch === '`') {
        blank(start, i);
        i++;
        return;
      } else if (ch === '$' && src[i + 1] === '{') {
        blank(start, i);
        braces.push('template');
        i += 2;
        return;
      } else i++;
    }
    blank(start, n);
  };
  const previousToken = (): string => {
    let k = i - 1;
    while (k >= 0 && /\s/.test(out[k])) k--;
    if (k < 0) return '';
    if (/[\w$]/.test(out[k])) {
      let s = k;
      while (s > 0 && /[\w$]/.test(out[s - 1])) s--;
      return out.slice(s, k + 1).join('');
    }
    return out[k];
  };
  while (i < n) {
    const ch = src[i];
    if (ch === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      blank(i, end === -1 ? n : end);
      i = end === -1 ? n : end;
    } else if (ch === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      blank(i, end === -1 ? n : end + 2);
      i = end === -1 ? n : end + 2;
    } else if (ch === "'" || ch === '"') {
      const start = ++i;
      while (i < n && src[i] !== ch && src[i] !== '\n') i += src[i] === '\\' ? 2 : 1;
      blank(start, Math.min(i, n));
      i++;
    } else if (ch === '`') {
      i++;
      scanTemplate();
    } else if (ch === '{') {
      braces.push('brace');
      i++;
    } else if (ch === '}') {
      const kind = braces.pop();
      i++;
      if (kind === 'template') scanTemplate();
    } else if (ch === '/') {
      const prev = previousToken();
      const isRegex = prev === '' || /^[(,=:[!&|?{};+\-*%<>~^]$/.test(prev) || REGEX_AFTER_WORD.has(prev);
      i++;
      if (!isRegex) continue;
      const start = i;
      let inClass = false;
      while (i < n && src[i] !== '\n') {
        if (src[i] === '\\') i += 2;
        else if (src[i] === '[') (inClass = true), i++;
        else if (src[i] === ']') (inClass = false), i++;
        else if (src[i] === '/' && !inClass) break;
        else i++;
      }
      blank(start, Math.min(i, n));
      i++;
    } else i++;
  }
  return out.join('');
}

/** Splits `text` (masked) at the commas that are not nested in (), [] or {}; returns [start, end) ranges. */
function topLevelRanges(text: string, from: number, to: number): [number, number][] {
  const ranges: [number, number][] = [];
  let depth = 0;
  let start = from;
  for (let k = from; k < to; k++) {
    const ch = text[k];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      ranges.push([start, k]);
      start = k + 1;
    }
  }
  if (text.slice(start, to).trim() !== '') ranges.push([start, to]);
  return ranges;
}

/** True when the (masked) options argument can carry a hint. */
function optionsHaveHint(options: string): boolean {
  const t = options.trim();
  if (t.startsWith('{') && t.endsWith('}')) {
    // an object literal: `hint` must be one of its own properties (`hint: ...` or shorthand `hint`);
    // a top-level spread (`...base`) may supply it and cannot be checked here
    return topLevelRanges(t, 1, t.length - 1).some(([a, b]) => {
      const prop = t.slice(a, b).trim();
      return /^hint\s*(?::|$)/.test(prop) || /^(?:get\s+)?hint\s*\(/.test(prop) || prop.startsWith('...');
    });
  }
  // options built elsewhere (a variable or property): cannot be checked here
  if (/^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*$/.test(t)) return true;
  // any other expression (e.g. a conditional between two literals) must at least mention hint
  return /\bhint\b/.test(t);
}

export interface SfErrorCall {
  line: number;
  code: string;
  hasHint: boolean;
}

/** Every `new SfError(...)` call in `src`: its line, its code argument (source text) and whether it passes a hint. */
export function sfErrorCalls(src: string): SfErrorCall[] {
  const masked = maskSource(src);
  const calls: SfErrorCall[] = [];
  for (const m of masked.matchAll(/\bnew\s+SfError\s*\(/g)) {
    const open = m.index! + m[0].length - 1;
    let depth = 0;
    let close = -1;
    for (let k = open; k < masked.length; k++) {
      if (masked[k] === '(') depth++;
      else if (masked[k] === ')' && --depth === 0) {
        close = k;
        break;
      }
    }
    const line = src.slice(0, m.index).split('\n').length;
    assert.ok(close !== -1, `unbalanced parentheses after new SfError( on line ${line}`);
    const args = topLevelRanges(masked, open + 1, close);
    const code = args[0] ? src.slice(args[0][0], args[0][1]).trim() : '';
    const options = args[2] ? masked.slice(args[2][0], args[2][1]) : '';
    calls.push({ line, code, hasHint: options !== '' && optionsHaveHint(options) });
  }
  return calls;
}

const isInternal = (code: string) => code === "'SF_E_INTERNAL'" || code === '"SF_E_INTERNAL"';

describe('error hints (every new SfError says how to fix it)', () => {
  it('the scanner finds hints only where they are options, not in strings, comments or nested data', () => {
    const calls = sfErrorCalls(
      [
        "throw new SfError('SF_E_USAGE', 'bad (hint: none', { data: { hint: 1 } });",
        "// new SfError('SF_E_USAGE', 'in a comment')",
        "/* new SfError('SF_E_USAGE', ')') */ const r = /[)'(]/g;",
        "throw new SfError('SF_E_USAGE', `a ${f(')', { x: `}` })} b`, {",
        "  hint: `use ${'('}`,",
        '});',
        "throw new SfError('SF_E_USAGE', 'x', { ...base, data: {} });",
        "throw new SfError('SF_E_USAGE', 'x', opts);",
        "throw new SfError('SF_E_USAGE', 'x', { hint, data });",
        "throw new SfError('SF_E_USAGE', 'x');",
        "throw new SfError('SF_E_INTERNAL', 'x');",
        "const s = \"new SfError('SF_E_USAGE', 'a string')\"; const q = a / b / c;",
        "throw new SfError(cond ? 'SF_E_IO' : 'SF_E_NOT_FOUND', 'x', cond ? { hint: 'a' } : { hint: 'b' });",
        "throw new SfError('SF_E_USAGE', 'x', { location: { file }, cause: e });",
      ].join('\n'),
    );
    assert.deepEqual(
      calls.map((c) => [c.line, c.code, c.hasHint]),
      [
        [1, "'SF_E_USAGE'", false],
        [4, "'SF_E_USAGE'", true],
        [7, "'SF_E_USAGE'", true],
        [8, "'SF_E_USAGE'", true],
        [9, "'SF_E_USAGE'", true],
        [10, "'SF_E_USAGE'", false],
        [11, "'SF_E_INTERNAL'", false],
        [13, "cond ? 'SF_E_IO' : 'SF_E_NOT_FOUND'", true],
        [14, "'SF_E_USAGE'", false],
      ],
    );
  });

  it(`every new SfError(...) in ${SCANNED_DIRS.join(', ')} passes a hint (SF_E_INTERNAL excepted)`, async () => {
    const missing: string[] = [];
    let scanned = 0;
    for (const top of SCANNED_DIRS) {
      for (const file of await sourceFiles(join(repoRoot, top))) {
        const rel = relative(repoRoot, file).split(sep).join('/');
        for (const call of sfErrorCalls(await readFile(file, 'utf8'))) {
          scanned++;
          if (!call.hasHint && !isInternal(call.code)) missing.push(`${rel}:${call.line}`);
        }
      }
    }
    assert.ok(scanned > 100, `only ${scanned} new SfError calls found: the scanner is broken`);
    assert.deepEqual(missing, [], 'new SfError(...) without a hint: add { hint: "how to fix it" }');
  });
});
