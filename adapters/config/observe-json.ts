import { isDeepStrictEqual } from 'node:util';
import { SfError, type Diagnostic } from '../../core/errors/index.js';
import { editConfigFile } from './config-file.js';
import { configOrigin, textToWrite } from './origin.js';
import { getPath, isJsonObject, parseJsonConfig, type JsonObject } from './json-edit.js';
import { appendJsonItem, emptyContainerText, removeJsonItem, removeJsonText, restoreEmptyContainer, setJsonText } from './json-text-edit.js';
import type { EmptiedContainer, ManagedConfigEdit, ManagedEntry } from './managed.js';

export type { EmptiedContainer } from './managed.js';
import { noteWrite, readWriteNote, withNotedEntries } from './write-note.js';

/**
 * Forge's observability settings in a JSON/JSONC host config (Claude Code's `env` keys and its
 * hook list): object entries Forge owns by path, and list items Forge owns by value. Ownership
 * rules, the same as for skill entries: Forge writes a slot nobody holds and records it; it only
 * changes or removes what still holds the value it wrote; a user's own value is never touched
 * (a required setting with a different user value is a conflict, a tunable one is respected).
 */

/** The label observability entries carry in the ManagedEntry.skillId field. */
export const OBSERVE_OWNER = 'forge:observe';

export interface ObserveEntry {
  path: string[];
  value: unknown;
  /** a user's own different value is fine (e.g. an export interval) and is left as it is */
  tunable?: boolean;
  /** other values that work as well (e.g. OTLP/JSON, which the observer also reads): the user's choice, reported as info at most */
  accepts?: unknown[];
}

const accepted = (want: ObserveEntry, now: unknown): boolean => now !== undefined && (want.accepts ?? []).some((a) => isDeepStrictEqual(a, now));

export interface ObserveArrayItem {
  /** the list, e.g. ['hooks', 'PreToolUse'] */
  path: string[];
  value: unknown;
}

/** A ManagedConfigEdit plus the list items Forge added. */
export interface ObserveConfigEdit extends ManagedConfigEdit {
  items: ObserveArrayItem[];
  /** containers Forge's first entry went into while they were empty (whitespace or comments only) */
  emptied?: EmptiedContainer[];
}

export interface ObserveJsonDesired {
  entries: ObserveEntry[];
  items: ObserveArrayItem[];
}

export interface ObserveJsonResult {
  edit?: ObserveConfigEdit;
  diagnostics: Diagnostic[];
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((k, i) => k === b[i]);
const key = (p: string[]) => p.join('.');

function userKept(file: string, path: string[], cur: unknown, ours: unknown): Diagnostic {
  return { code: 'SF_OBSERVE_USER_VALUE', severity: 'warning', file,
    message: `"${key(path)}" in ${file} is ${JSON.stringify(cur)}, not Forge's ${JSON.stringify(ours)}; Forge left your value in place`,
    hint: `Delete "${key(path)}" from ${file} and run \`sf observe update\` if you want Forge's setting back.` };
}

/** A value of the user's that works as well as Forge's: kept, and said once as info. */
function acceptedValue(file: string, path: string[], cur: unknown, ours: unknown, host?: string): Diagnostic {
  return { code: 'SF_OBSERVE_USER_VALUE', severity: 'info', file,
    message: `${host ? `${host}: ` : ''}"${key(path)}" in ${file} is ${JSON.stringify(cur)}, not Forge's ${JSON.stringify(ours)}; the observer accepts that as well, so your value is used`,
    hint: `to go back to Forge's value, delete "${key(path)}" from ${file} and run \`sf observe update\`` };
}

interface Plan {
  text: string;
  managed: ManagedEntry[];
  items: ObserveArrayItem[];
  created: string[][];
  emptied: EmptiedContainer[];
  diagnostics: Diagnostic[];
}

/** Plans the edit (pure): `desired` empty removes everything Forge owns. */
export function planObserveJson(text: string, file: string, eol: string, previous: ObserveConfigEdit | undefined, desired: ObserveJsonDesired): Plan {
  const doc = parseJsonConfig(text, file);
  const diagnostics: Diagnostic[] = [];
  const fatal: string[] = [];
  const managed: ManagedEntry[] = [];
  let created = [...(previous?.created ?? [])];
  const emptied = (Array.isArray(previous?.emptied) ? previous.emptied : []).filter((e) => Array.isArray(e?.path) && typeof e.text === 'string');
  let out = text;
  const cur = (p: string[]) => getPath(parseJsonConfig(out, file), p);
  // the empty container the entry goes into keeps its inner text on record (`{ }`, `{\n  }`):
  // removing Forge's last entry from it gives that back, not `{}`
  const noteEmpty = (p: string[]) => {
    let at = p.length - 1;
    while (at > 0 && cur(p.slice(0, at)) === undefined) at--;
    const container = p.slice(0, at);
    const inner = emptyContainerText(out, container);
    if (inner !== undefined && !emptied.some((e) => same(e.path, container))) emptied.push({ path: container, text: inner });
  };
  const set = (p: string[], v: unknown) => {
    for (let i = 1; i < p.length; i++) {
      const parent = cur(p.slice(0, i));
      if (parent === undefined) created.push(p.slice(0, i));
      else if (!isJsonObject(parent)) throw new SfError('SF_E_CONFIG', `${file}: "${key(p.slice(0, i))}" is not an object, so Forge cannot add "${key(p)}"`, { location: { file, pointer: key(p.slice(0, i)) }, hint: `Write "${key(p.slice(0, i))}" as an object and run the command again; the file was not changed.` });
    }
    if (cur(p) === undefined) noteEmpty(p);
    out = setJsonText(out, p, v, eol, file);
  };
  for (const prev of previous?.managed ?? []) {
    if (desired.entries.some((d) => same(d.path, prev.path))) continue;
    const now = getPath(doc, prev.path);
    if (now === undefined) continue;
    if (isDeepStrictEqual(now, prev.value)) out = removeJsonText(out, prev.path, eol, file);
    else diagnostics.push(userKept(file, prev.path, now, prev.value));
  }
  for (const want of desired.entries) {
    const now = getPath(doc, want.path);
    const owned = previous?.managed.find((m) => same(m.path, want.path));
    if (now === undefined || (owned && isDeepStrictEqual(now, owned.value))) {
      if (!isDeepStrictEqual(now, want.value)) set(want.path, want.value);
      managed.push({ skillId: OBSERVE_OWNER, path: want.path, value: want.value });
    } else if (isDeepStrictEqual(now, want.value)) {
      // the user's own identical setting: used as it is, never removed by Forge
    } else if (accepted(want, now)) {
      diagnostics.push(acceptedValue(file, want.path, now, want.value));
    } else if (owned || want.tunable) {
      diagnostics.push(userKept(file, want.path, now, want.value));
    } else {
      fatal.push(`"${key(want.path)}" is ${JSON.stringify(now)} (Forge needs ${JSON.stringify(want.value)})`);
    }
  }
  if (fatal.length) {
    throw new SfError('SF_E_CONFLICT', `${file} already has your own settings that observability would change: ${fatal.join('; ')}`, {
      location: { file }, data: { conflicts: fatal },
      hint: 'Forge never overwrites your settings: remove or change these yourself (e.g. point them at the observer), then run `sf observe install` again. The file was not changed.',
    });
  }
  const items = reconcileItems(() => parseJsonConfig(out, file), (t) => (out = t), () => out, previous?.items ?? [], desired.items, eol, file, created);
  created = pruneCreated(() => out, (t) => (out = t), created, eol, file);
  for (const e of emptied) out = restoreEmptyContainer(out, e.path, e.text, file);
  // kept while the container is there (Forge's entries may still be in it)
  const doc2 = parseJsonConfig(out, file);
  const kept = emptied.filter((e) => e.path.length === 0 || getPath(doc2, e.path) !== undefined);
  return { text: out, managed, items, created, emptied: kept, diagnostics };
}

function reconcileItems(doc: () => JsonObject, write: (t: string) => void, text: () => string, previous: ObserveArrayItem[], desired: ObserveArrayItem[], eol: string, file: string, created: string[][]): ObserveArrayItem[] {
  const kept: ObserveArrayItem[] = [];
  const index = (it: ObserveArrayItem) => {
    const list = getPath(doc(), it.path);
    return Array.isArray(list) ? list.findIndex((x) => isDeepStrictEqual(x, it.value)) : -1;
  };
  for (const prev of previous) {
    if (desired.some((d) => same(d.path, prev.path) && isDeepStrictEqual(d.value, prev.value))) continue;
    const i = index(prev);
    if (i >= 0) write(removeJsonItem(text(), prev.path, i, eol, file));
  }
  for (const want of desired) {
    if (index(want) < 0) {
      for (let i = 1; i <= want.path.length; i++) if (getPath(doc(), want.path.slice(0, i)) === undefined) created.push(want.path.slice(0, i));
      write(appendJsonItem(text(), want.path, want.value, eol, file));
    }
    kept.push(want);
  }
  return kept;
}

/** Removes containers Forge created that are now empty (deepest first); forgets ones that are gone. */
function pruneCreated(text: () => string, write: (t: string) => void, created: string[][], eol: string, file: string): string[][] {
  const out: string[][] = [];
  const unique = [...new Map(created.map((c) => [JSON.stringify(c), c])).values()].sort((a, b) => b.length - a.length);
  for (const p of unique) {
    const v = getPath(parseJsonConfig(text(), file), p);
    if (v === undefined) continue;
    const empty = (isJsonObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
    if (empty) write(removeJsonText(text(), p, eol, file));
    else out.push(p);
  }
  return out;
}

/** Applies `desired` to `file` (backup, atomic write); `desired` empty removes Forge's settings. */
export async function reconcileObserveJson(file: string, backupDir: string, format: 'json' | 'jsonc', previous: ObserveConfigEdit | undefined, desired: ObserveJsonDesired): Promise<ObserveJsonResult> {
  let result: ObserveJsonResult = { diagnostics: [] };
  const outcome = await editConfigFile(file, backupDir, (snap) => {
    // settings Forge wrote in an install that was killed before its record was kept
    const noted = readWriteNote(backupDir, file, OBSERVE_OWNER);
    const owned = withNotedEntries(previous, noted, parseJsonConfig(snap.text, file), () => ({ file, format, origin: 'existing' as const, managed: [], created: [], items: [] }));
    const origin = configOrigin(owned, snap);
    const plan = planObserveJson(snap.text, file, snap.shape.eol, owned, desired);
    const owns = plan.managed.length > 0 || plan.items.length > 0;
    const empty = !owns && isDeepStrictEqual(parseJsonConfig(plan.text, file), {});
    const next = textToWrite(origin, snap, plan.text, empty);
    result = {
      diagnostics: plan.diagnostics,
      edit: owns ? { file, backup: owned?.backup, format, ...origin, managed: plan.managed, created: plan.created, items: plan.items, ...(plan.emptied.length ? { emptied: plan.emptied } : {}) } : undefined,
    };
    return next;
  }, false, async (_written, backup) => {
    if (result.edit && !result.edit.backup && backup) result.edit.backup = backup;
    await noteWrite(backupDir, file, OBSERVE_OWNER, result.edit);
  });
  if (result.edit && !result.edit.backup && outcome.backup) result.edit.backup = outcome.backup;
  return result;
}

/** Drift of Forge's settings in `file` without writing: missing or changed entries and list items. */
export function diagnoseObserveJson(text: string, file: string, previous: ObserveConfigEdit | undefined, desired: ObserveJsonDesired, host: string): Diagnostic[] {
  const doc = parseJsonConfig(text, file);
  const out: Diagnostic[] = [];
  for (const want of desired.entries) {
    const now = getPath(doc, want.path);
    if (isDeepStrictEqual(now, want.value)) continue;
    const owned = previous?.managed.some((m) => same(m.path, want.path));
    if (now !== undefined && !owned && want.tunable) continue;
    if (accepted(want, now)) {
      out.push(acceptedValue(file, want.path, now, want.value, host));
      continue;
    }
    out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'error', file,
      message: `${host}: "${key(want.path)}" is ${now === undefined ? 'missing' : JSON.stringify(now)} in ${file} (observability needs ${JSON.stringify(want.value)})`,
      // update puts back what is missing, but keeps a value someone changed (Forge's or the user's own)
      hint: now === undefined ? 'run `sf observe update` to restore it' : `change or remove the value of "${key(want.path)}" yourself (Forge keeps a value you set), then run \`sf observe update\`` });
  }
  for (const it of desired.items) {
    const list = getPath(doc, it.path);
    if (Array.isArray(list) && list.some((x) => isDeepStrictEqual(x, it.value))) continue;
    out.push({ code: 'SF_OBSERVE_DRIFT', severity: 'error', file,
      message: `${host}: Forge's entry in "${key(it.path)}" is missing from ${file} (another installer may have replaced the list)`,
      hint: 'run `sf observe update` to add it again; other tools\' entries are kept' });
  }
  return out;
}
