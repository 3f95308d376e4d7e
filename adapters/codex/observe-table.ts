import { isDeepStrictEqual } from 'node:util';
import { SfError } from '../../core/errors/index.js';
import { MARKER, parseTomlConfig, splitLines } from '../config/toml-blocks.js';
import { findManagedTables, tomlLiteral } from '../config/toml-table.js';

/**
 * Line-level edits of Forge's `[otel]` table in Codex's config.toml once the user has touched it.
 * TOML gives a table every key line up to the next table header, so the table Codex reads is not
 * always the marked block Forge wrote: a user adds a key inside it, or moves the block above
 * settings of their own (which then belong to [otel]). Forge edits only the lines of its own keys
 * (log_user_prompt, exporter, metrics_exporter) and leaves every other line where it is; a key
 * whose value the user changed is theirs and is kept (docs/observe.md: user values are never
 * overwritten). Every plan is checked by parsing: nothing outside Forge's keys may change.
 */

/** One key line of the table: the key, its line index and (when the line parses alone) its value. */
interface KeyLine {
  key: string;
  index: number;
  value?: unknown;
}

export interface OtelTableText {
  lines: string[];
  /** index of the marker line (the header follows it) */
  marker: number;
  /** one past the last line of the table (the next table header, or the end of the file) */
  end: number;
  /** one past the contiguous key lines right after the header (what Forge's block parser reads) */
  blockEnd: number;
  keys: KeyLine[];
  /** the table as TOML reads it */
  table: Record<string, unknown>;
  /** the rest of the document (everything but the table) */
  rest: Record<string, unknown>;
}

// a table header: bare, quoted or dotted keys in brackets (a line of a multi-line array, with its
// commas or values, is not one; what is still ambiguous is caught by the check after each plan)
const HEADER = /^[ \t]*\[\[?[ \t]*[A-Za-z0-9_"'-][A-Za-z0-9_."' \t-]*\]\]?[ \t]*(#.*)?\r?\n?$/;
const KEY = /^[ \t]*([A-Za-z0-9_-]+)[ \t]*=/;

function withoutTable(doc: Record<string, unknown>, table: string): Record<string, unknown> {
  const c = { ...doc };
  delete c[table];
  return c;
}

/** Forge's marked table in `text`, or undefined when there is none. */
export function locateOtelTable(text: string, file: string, table: string, id: string): OtelTableText | undefined {
  const doc = parseTomlConfig(text, file);
  const blocks = findManagedTables(text, table, id);
  if (blocks.length !== 1) return undefined;
  const lines = splitLines(text);
  const marker = blocks[0].start;
  let end = marker + 2;
  while (end < lines.length && !HEADER.test(lines[end])) end++;
  const keys: KeyLine[] = [];
  for (let i = marker + 2; i < end; i++) {
    const m = KEY.exec(lines[i]);
    if (!m) continue;
    let value: unknown;
    try {
      value = parseTomlConfig(lines[i], file)[m[1]];
    } catch {
      value = undefined;
    }
    keys.push({ key: m[1], index: i, ...(value !== undefined ? { value } : {}) });
  }
  const t = doc[table];
  return { lines, marker, end, blockEnd: blocks[0].end, keys, table: t && typeof t === 'object' ? (t as Record<string, unknown>) : {}, rest: withoutTable(doc, table) };
}

/** The user's keys in the table: inside Forge's block lines, and after them (a blank line, a comment or a sub-table away). */
export function userKeys(t: OtelTableText, forge: readonly string[]): { inBlock: string[]; after: string[] } {
  const inBlock = new Set(t.keys.filter((k) => k.index < t.blockEnd).map((k) => k.key));
  const own = Object.keys(t.table).filter((k) => !forge.includes(k));
  return { inBlock: own.filter((k) => inBlock.has(k)), after: own.filter((k) => !inBlock.has(k)) };
}

export interface OtelPlan {
  text: string;
  /** Forge's keys that hold a value of the user's (kept) */
  kept: string[];
  /** Forge's keys written (changed or added) */
  written: string[];
}

function refuse(file: string, table: string, why: string): never {
  throw new SfError('SF_E_CONFIG', `${file}: ${why}; refusing`, {
    location: { file, pointer: table },
    hint: `Write Forge's keys in the [${table}] table marked "${MARKER}" as one line each (key = value), or delete them, then run the command again; the file was not changed.`,
  });
}

function check(before: OtelTableText, after: string, file: string, table: string, want: Record<string, unknown>): void {
  let doc: Record<string, unknown>;
  try {
    doc = parseTomlConfig(after, file);
  } catch (e) {
    if (!(e instanceof SfError)) throw e;
    refuse(file, table, `setting Forge's [${table}] keys line by line would make the file invalid TOML`);
  }
  if (!isDeepStrictEqual(withoutTable(doc, table), before.rest) || !isDeepStrictEqual(doc[table], want)) {
    refuse(file, table, `setting Forge's [${table}] keys line by line would change other settings`);
  }
}

/**
 * Sets Forge's keys to `values` in place. A key still holding what Forge wrote (`written`; with no
 * record every Forge key counts as Forge's) is rewritten on its own line; a missing one is added
 * after Forge's other keys; one holding another value is the user's and is kept.
 */
export function planOtelValues(t: OtelTableText, file: string, table: string, values: Record<string, unknown>, eol: string, written?: Record<string, unknown>): OtelPlan {
  const lines = [...t.lines];
  const kept: string[] = [];
  const changed: string[] = [];
  const expected = { ...t.table };
  // a missing key goes after the Forge key before it (or the header): [after line, lines]
  const inserts = new Map<number, string[]>();
  let anchor = t.marker + 1;
  for (const [k, want] of Object.entries(values)) {
    const now = t.table[k];
    const line = t.keys.find((x) => x.key === k);
    if (line && line.index < t.end) anchor = Math.max(anchor, line.index);
    if (isDeepStrictEqual(now, want)) continue;
    if (now !== undefined && written && !isDeepStrictEqual(now, written[k])) {
      kept.push(k);
      continue;
    }
    if (now !== undefined && (!line || !isDeepStrictEqual(line.value, now))) refuse(file, table, `Forge's key "${k}" in [${table}] is written as dotted keys or a sub-table, which Forge does not edit`);
    const text = `${k} = ${tomlLiteral(want)}${eol}`;
    if (line) lines[line.index] = (/^[ \t]*/.exec(lines[line.index])?.[0] ?? '') + text;
    else inserts.set(anchor, [...(inserts.get(anchor) ?? []), text]);
    expected[k] = want;
    changed.push(k);
  }
  for (const [after, added] of [...inserts].sort((a, b) => b[0] - a[0])) {
    // the line they follow must end with a line ending before more lines go after it
    if (!lines[after].endsWith('\n')) lines[after] += eol;
    lines.splice(after + 1, 0, ...added);
  }
  const text = lines.join('');
  if (changed.length) check(t, text, file, table, expected);
  return { text, kept, written: changed };
}

/**
 * Takes Forge's keys out of a table that also holds keys of the user's outside Forge's block
 * lines: the lines of keys that still hold what Forge wrote and the marker go, the header and
 * every other line stay (the table is the user's from then on).
 */
export function planOtelRemoval(t: OtelTableText, file: string, table: string, written: Record<string, unknown>): string {
  const drop = new Set<number>([t.marker]);
  const expected = { ...t.table };
  for (const [k, was] of Object.entries(written)) {
    const line = t.keys.find((x) => x.key === k);
    if (!line || !isDeepStrictEqual(t.table[k], was) || !isDeepStrictEqual(line.value, was)) continue;
    drop.add(line.index);
    delete expected[k];
  }
  const text = t.lines.filter((_, i) => !drop.has(i)).join('');
  check(t, text, file, table, expected);
  return text;
}
