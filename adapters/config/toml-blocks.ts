import { parse, TomlError } from 'smol-toml';
import { SfError } from '../../core/errors/index.js';
import { linesStartingInString } from './toml-strings.js';

/**
 * Forge owns whole array-of-tables entries in a user's TOML file, each introduced by a marker
 * comment, e.g.
 *
 *     # managed by sf: acme/kit:beta
 *     [[skills.config]]
 *     path = "/home/me/.agents/skills/beta/SKILL.md"
 *     enabled = false
 *
 * TOML parsers round-trip data, not text, so Forge edits text only inside these blocks and appends
 * new ones at the end; every other byte of the file stays as it was.
 */
export const MARKER = '# managed by sf:';

export interface TomlBlock {
  /** what the block is for, e.g. the skill id */
  id: string;
  /** the table header line, e.g. `[[skills.config]]` */
  header: string;
  /** index of the marker line and one past the last key line */
  start: number;
  end: number;
  values: Record<string, unknown>;
}

/** Plain JSON data (smol-toml builds null-prototype objects and Date subclasses): safe to deep-compare. */
function plain(v: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
}

/** Parses TOML to plain data; a syntax error is SF_E_CONFIG with its line and column and the file is left alone. */
export function parseTomlConfig(text: string, file: string): Record<string, unknown> {
  try {
    return plain(parse(text));
  } catch (e) {
    // a table header or value nested thousands deep overflows the parser or the copy
    if (e instanceof RangeError) {
      throw new SfError('SF_E_CONFIG', `${file}: nested too deeply to read; Forge will not edit it`, {
        location: { file },
        hint: 'fix the file (a config is a few levels deep) or move it away, then run the command again; the file was not changed',
        cause: e,
      });
    }
    if (!(e instanceof TomlError)) throw e;
    const reason = e.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
    throw new SfError('SF_E_CONFIG', `${file}:${e.line}:${e.column}: ${reason}; Forge will not edit a config file it cannot parse`, {
      location: { file, line: e.line, column: e.column },
      hint: 'Fix the TOML syntax (or move the file away) and run the command again; the file was not changed.',
      cause: e,
    });
  }
}

/** Lines with their line endings kept, so joining them gives the text back byte for byte. */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

const KEY_LINE = /^[ \t]*[A-Za-z0-9_-]+[ \t]*=/;

/**
 * The key lines of a block starting at `from`: each begins outside a multi-line string. Parsed
 * alone they must be key/value pairs; lines that do not parse that way (a value continued on the
 * next line, say) make the candidate no block of Forge's (undefined).
 */
export function blockBody(lines: readonly string[], inString: readonly boolean[], from: number): { end: number; values: Record<string, unknown> } | undefined {
  let end = from;
  while (end < lines.length && !inString[end] && KEY_LINE.test(lines[end])) end++;
  try {
    return { end, values: plain(parse(lines.slice(from, end).join(''))) };
  } catch (e) {
    if (e instanceof TomlError || e instanceof RangeError) return undefined;
    throw e;
  }
}

/**
 * Every Forge-managed block in `text`: a marker line, then a `[[...]]` header, then key lines.
 * Lines inside a multi-line string are text, never a block, whatever they look like.
 */
export function findManagedBlocks(text: string): TomlBlock[] {
  const lines = splitLines(text);
  const inString = linesStartingInString(lines);
  const blocks: TomlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trimEnd();
    if (inString[i] || !line.startsWith(MARKER)) continue;
    const header = lines[i + 1]?.trim();
    if (!header || inString[i + 1] || !/^\[\[[^\]]+\]\]$/.test(header)) continue;
    const body = blockBody(lines, inString, i + 2);
    if (!body) continue;
    blocks.push({ id: line.slice(MARKER.length).trim(), header, start: i, end: body.end, values: body.values });
    i = body.end - 1;
  }
  return blocks;
}

/** Renders one block; values are strings or booleans, written as TOML literals. */
export function renderBlock(id: string, header: string, values: [string, string | boolean][], eol: string): string {
  const body = values.map(([k, v]) => `${k} = ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
  return [`${MARKER} ${id}`, header, ...body].map((l) => l + eol).join('');
}

/**
 * What appendBlocks puts between `text` and a block it appends: a line ending for an unfinished
 * last line, then a blank separator line unless the text already ends with one.
 */
export function separatorBefore(text: string, eol: string): string {
  if (text === '') return '';
  const ended = text.endsWith('\n') ? '' : eol;
  return /(^|\n)[ \t]*\r?\n$/.test(text + ended) ? ended : ended + eol;
}

/** Appends rendered blocks at the end, each after one blank separator line. */
export function appendBlocks(text: string, rendered: string[], eol: string): string {
  let out = text;
  for (const block of rendered) out += separatorBefore(out, eol) + block;
  return out;
}

/**
 * The line ending of the separator that stays when a block is cut from between `before` (the text
 * left once its separator is cut) and `after`: the separator ended the user's unfinished last line,
 * and when text that does not start a line of its own follows (a table the user appended right
 * after the block), the line must stay ended or the two would run together. With nothing but
 * blank text after the block the whole separator goes, so the file ends as it did.
 */
function lineEndingKept(before: string, separator: string, after: string): string {
  if (before === '' || before.endsWith('\n') || after.trim() === '' || /^\r?\n/.test(after)) return '';
  return /\r?\n/.exec(separator)?.[0] ?? '';
}

/**
 * Replaces each block by `replacement(block)`. A removed block (undefined) takes with it the
 * separator Forge put before it: exactly `separatorOf(block)` when one was recorded (so the
 * user's own blank lines and unfinished last line come back as they were; its line ending stays
 * when text follows on the same line, see lineEndingKept), otherwise one blank line.
 */
export function rewriteBlocks(text: string, blocks: TomlBlock[], replacement: (b: TomlBlock) => string | undefined, separatorOf?: (b: TomlBlock) => string | undefined): string {
  const lines = splitLines(text);
  const inOrder = [...blocks].sort((a, b) => a.start - b.start).map((b) => ({ b, next: replacement(b) }));
  for (const { b, next } of inOrder.reverse()) {
    if (next !== undefined) {
      lines.splice(b.start, b.end - b.start, ...splitLines(next));
      continue;
    }
    const separator = separatorOf?.(b);
    if (separator !== undefined) {
      const before = lines.slice(0, b.start).join('');
      const cut = before.endsWith(separator) ? before.slice(0, before.length - separator.length) : before;
      lines.splice(0, b.end, ...splitLines(cut + lineEndingKept(cut, separator, lines.slice(b.end).join(''))));
      continue;
    }
    let start = b.start;
    if (start > 0 && lines[start - 1].trim() === '') start--;
    lines.splice(start, b.end - start);
  }
  return lines.join('');
}
