import { isDeepStrictEqual } from 'node:util';
import { SfError } from '../../core/errors/index.js';
import { editConfigFile } from './config-file.js';
import { linesStartingInString } from './toml-strings.js';
import { MARKER, appendBlocks, parseTomlConfig, rewriteBlocks, separatorBefore, splitLines, type TomlBlock } from './toml-blocks.js';

/**
 * One whole TOML table Forge owns in a user's file (Codex's `[otel]`), introduced by a marker:
 *
 *     # managed by sf: observe
 *     [otel]
 *     log_user_prompt = false
 *     exporter = { otlp-http = { endpoint = "http://127.0.0.1:14318/v1/logs", protocol = "json" } }
 *
 * Forge edits text only inside its block and appends a new one at the end, so every other byte
 * stays. A table of the same name that is not Forge's is the user's: it is never edited (a
 * conflict), because TOML allows a table only once.
 */

export interface TomlTableEdit {
  file: string;
  backup?: string;
  origin: 'missing' | 'empty' | 'existing';
  /** table name, e.g. 'otel' */
  table: string;
  /** marker id, e.g. 'observe' */
  id: string;
  values: Record<string, unknown>;
  /**
   * what Forge put between the user's text and its appended table (a line ending, a blank line,
   * both or nothing), taken back exactly on removal; absent in records written before it was kept
   */
  separator?: string;
}

/** A TOML literal for strings, booleans, numbers and (nested) inline tables. */
export function tomlLiteral(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const parts = Object.entries(v).map(([k, x]) => `${/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k)} = ${tomlLiteral(x)}`);
    return `{ ${parts.join(', ')} }`;
  }
  throw new TypeError(`no TOML literal for ${JSON.stringify(v)}`);
}

/** Renders a table; with `id` undefined it has no marker (a table Forge let go of: the user's). */
export function renderTable(id: string | undefined, table: string, values: Record<string, unknown>, eol: string): string {
  const lines = [...(id === undefined ? [] : [`${MARKER} ${id}`]), `[${table}]`, ...Object.entries(values).map(([k, v]) => `${k} = ${tomlLiteral(v)}`)];
  return lines.map((l) => l + eol).join('');
}

const KEY_LINE = /^[ \t]*[A-Za-z0-9_-]+[ \t]*=/;

/** Forge's blocks for `table` with marker `id` in `text`. */
export function findManagedTables(text: string, table: string, id: string): TomlBlock[] {
  const lines = splitLines(text);
  // lines inside a multi-line string are text, whatever they look like
  const inString = linesStartingInString(lines);
  const out: TomlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (inString[i] || inString[i + 1] || lines[i].trimEnd() !== `${MARKER} ${id}` || lines[i + 1]?.trim() !== `[${table}]`) continue;
    let end = i + 2;
    while (end < lines.length && !inString[end] && KEY_LINE.test(lines[end])) end++;
    let values: Record<string, unknown> = {};
    try {
      values = parseTomlConfig(lines.slice(i + 2, end).join(''), 'block');
    } catch (e) {
      if (!(e instanceof SfError)) throw e;
    }
    out.push({ id, header: `[${table}]`, start: i, end, values });
    i = end - 1;
  }
  return out;
}

/**
 * Plans the file text with Forge's table set to `values` (undefined: removed). Pure. `written` is
 * what Forge wrote last time: a key whose value differs from it (a changed value, a key the user
 * added to the block) is the user's and is kept, on update and on removal; a table that still
 * holds such keys after removal loses its marker and is the user's from then on.
 */
export function planTomlTable(text: string, file: string, table: string, id: string, values: Record<string, unknown> | undefined, eol: string, written?: Record<string, unknown>, separator?: string): { text: string; separator?: string } {
  const doc = parseTomlConfig(text, file);
  const blocks = findManagedTables(text, table, id);
  if (doc[table] !== undefined && blocks.length === 0) {
    if (values === undefined) return { text };
    throw new SfError('SF_E_CONFLICT', `${file} already has your own [${table}] settings; Forge does not edit them`, {
      location: { file, pointer: table },
      hint: `Remove your [${table}] table (or point its exporters at the observer yourself), then run the command again. The file was not changed.`,
    });
  }
  const current = blocks[0]?.values;
  const users = current && written ? Object.keys(current).filter((k) => !isDeepStrictEqual(current[k], written[k])) : [];
  const kept = Object.fromEntries(users.map((k) => [k, current![k]]));
  const expected = values ? { ...values, ...kept } : users.length > 0 ? kept : undefined;
  const rendered = expected ? renderTable(values ? id : undefined, table, expected, eol) : undefined;
  let out = rewriteBlocks(text, blocks, (b) => (b === blocks[0] ? rendered : undefined), (b) => (b === blocks[0] ? separator : undefined));
  if (blocks.length === 0 && rendered) {
    separator = separatorBefore(out, eol);
    out = appendBlocks(out, [rendered], eol);
  }
  verify(text, out, file, table, expected, values === undefined ? 'removing' : blocks.length === 0 ? 'adding' : 'updating');
  return { text: out, ...(separator !== undefined ? { separator } : {}) };
}

function verify(before: string, after: string, file: string, table: string, values: Record<string, unknown> | undefined, action: 'adding' | 'updating' | 'removing'): void {
  if (before === after) return;
  let b: Record<string, unknown>;
  try {
    b = parseTomlConfig(after, file);
  } catch (e) {
    throw new SfError('SF_E_CONFIG', `${file}: ${action} Forge's [${table}] table would make the file invalid TOML; refusing`, {
      location: { file, pointer: table }, cause: e,
      hint: action === 'adding'
        ? 'Check the end of the file for an unfinished table or array; the file was not changed.'
        : `Check the text around the [${table}] table marked "${MARKER}" (an unfinished line or table next to it), or delete that table yourself; the file was not changed.`,
    });
  }
  const a = parseTomlConfig(before, file);
  const strip = (d: Record<string, unknown>) => {
    const c = { ...d };
    delete c[table];
    return c;
  };
  if (!isDeepStrictEqual(strip(a), strip(b)) || !isDeepStrictEqual(b[table], values)) {
    throw new SfError('SF_E_CONFIG', `${file}: editing Forge's [${table}] table would change other settings; refusing`, {
      location: { file, pointer: table },
      hint: `Check that the block marked "${MARKER}" was not merged with your own keys; the file was not changed.`,
    });
  }
}

/** Applies the table (backup, atomic write) and returns the record, or undefined once removed. */
export async function reconcileTomlTable(file: string, backupDir: string, previous: TomlTableEdit | undefined, table: string, id: string, values: Record<string, unknown> | undefined): Promise<TomlTableEdit | undefined> {
  let origin: TomlTableEdit['origin'] = previous?.origin ?? 'existing';
  // a hand-edited record's separator that is not a string is no record
  const recorded = typeof previous?.separator === 'string' ? previous.separator : undefined;
  let separator: string | undefined;
  const outcome = await editConfigFile(file, backupDir, (snap) => {
    origin = previous?.origin ?? (!snap.exists ? 'missing' : snap.text.trim() === '' ? 'empty' : 'existing');
    const next = planTomlTable(snap.text, file, table, id, values, snap.shape.eol, previous?.values, recorded);
    separator = next.separator;
    if (!values && next.text.trim() === '' && origin === 'missing') return null;
    // with the separator recorded the text is already the user's, whitespace and all
    if (!values && next.text.trim() === '' && origin === 'empty' && recorded === undefined) return snap.text.trim() === '' ? snap.text : '';
    return next.text;
  });
  if (!values) return undefined;
  return { file, backup: previous?.backup ?? outcome.backup, origin, table, id, values, ...(separator !== undefined ? { separator } : {}) };
}
