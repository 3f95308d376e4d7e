import { isDeepStrictEqual } from 'node:util';
import type { ConfigEdit } from '../../core/install/host-adapter.js';
import type { Diagnostic } from '../../core/errors/index.js';

/** One setting Forge wrote and therefore owns: a JSON path (or a TOML selector) and the value written. */
export interface ManagedEntry {
  /** `owner/name:skill` the entry is for */
  skillId: string;
  /** JSON: property path; TOML: ['skills', 'config', <selector kind>, <selector value>] */
  path: string[];
  value: unknown;
}

/** A value Forge had to reshape to add its entries (OpenCode `"skill": "ask"` -> `{"*": "ask"}`). */
export interface ExpandedValue {
  path: string[];
  original: unknown;
}

/** An object or list that was empty when Forge added its first entry, with the text between its brackets then. */
export interface EmptiedContainer {
  path: string[];
  /** e.g. " " of `{ }`, or "\n  " of `{\n  }`: given back when Forge's last entry leaves it */
  text: string;
}

/**
 * A ConfigEdit as the host adapters record it. The extra fields are the ownership ledger that lets
 * `unproject` restore the file exactly: which entries Forge wrote, which containers it created,
 * and whether the file existed at all before Forge's first edit. They are plain JSON data, stored
 * with the rest of the ProjectionRecord.
 */
export interface ManagedConfigEdit extends ConfigEdit {
  format: 'json' | 'jsonc' | 'toml';
  /** the file before Forge's first edit: 'missing' files are deleted again when Forge's last entry goes */
  origin: 'missing' | 'empty' | 'existing';
  /** the whitespace an 'empty' file held before Forge's first edit, given back with the last entry */
  emptyText?: string;
  managed: ManagedEntry[];
  /** object paths that did not exist before Forge created them; removed again when they end up empty */
  created: string[][];
  expanded?: ExpandedValue[];
  /** JSON: containers Forge's first entry went into while they were empty (whitespace or comments only) */
  emptied?: EmptiedContainer[];
  /**
   * the file had no final newline and Forge added one to append its entries (taken back with the
   * last entry); records written since `separators` existed keep that in the separators instead
   */
  addedFinalNewline?: boolean;
  /** TOML: what Forge put before each block it appended, by the block's marker id, taken back exactly with the block */
  separators?: Record<string, string>;
}

export function isManagedConfigEdit(e: ConfigEdit): e is ManagedConfigEdit {
  return Array.isArray((e as Partial<ManagedConfigEdit>).managed);
}

/**
 * One ledger per file from edits recorded in order (a record's own, then those a failed command
 * made before it failed): every entry any of them wrote is Forge's, the latest value wins; the
 * file's origin and backup are the earliest known.
 */
export function mergeEditsByFile(edits: readonly ManagedConfigEdit[]): ManagedConfigEdit[] {
  const byFile = new Map<string, ManagedConfigEdit>();
  for (const e of edits) {
    const seen = byFile.get(e.file);
    if (!seen) {
      byFile.set(e.file, e);
      continue;
    }
    const managed = [...seen.managed.filter((m) => !e.managed.some((n) => samePath(n.path, m.path))), ...e.managed];
    const created = [...seen.created, ...e.created.filter((c) => !seen.created.some((s) => samePath(s, c)))];
    const expanded = [...(seen.expanded ?? []), ...(e.expanded ?? []).filter((x) => !(seen.expanded ?? []).some((s) => samePath(s.path, x.path)))];
    const separators = { ...e.separators, ...seen.separators };
    // what a container held before Forge's first entry: the earliest record knows
    const emptied = [...(seen.emptied ?? []), ...(e.emptied ?? []).filter((x) => !(seen.emptied ?? []).some((s) => samePath(s.path, x.path)))];
    byFile.set(e.file, { ...seen, backup: seen.backup ?? e.backup, managed, created, ...(expanded.length ? { expanded } : {}), ...(emptied.length ? { emptied } : {}), ...(Object.keys(separators).length ? { separators } : {}) });
  }
  return [...byFile.values()];
}

/** What Forge wants at one skill's setting: `value` to own that entry, `undefined` to have none. */
export interface DesiredEntry {
  skillId: string;
  skillName: string;
  path: string[];
  value: unknown;
}

export type PlanOp = { kind: 'set'; entry: ManagedEntry } | { kind: 'remove'; path: string[] };

export interface EntryPlan {
  ops: PlanOp[];
  managed: ManagedEntry[];
  /** findings about user-owned entries at Forge's paths (never overwritten) */
  diagnostics: Diagnostic[];
  /** user entries that would leave a disabled child switched on: the caller must refuse */
  fatal: Diagnostic[];
}

const samePath = (a: string[], b: string[]): boolean => a.length === b.length && a.every((k, i) => k === b[i]);

/**
 * Reconciles Forge's desired per-skill entries with what a config file holds (pure).
 * - an entry Forge owns is (re)written to the desired value, or removed when none is wanted;
 *   removal only happens while it still holds what Forge wrote (a value the user changed is left
 *   alone and Forge lets go of it, with a warning);
 * - a slot nobody holds is written and recorded as Forge's;
 * - a slot the user holds is never touched: same as ours -> nothing to do; a user value that keeps
 *   an enabled skill off -> warning; a user value that would switch a disabled skill on -> fatal.
 */
export function planEntries(
  current: (path: string[]) => unknown,
  previous: readonly ManagedEntry[],
  desired: readonly DesiredEntry[],
  file: string,
  disabledValue: unknown,
  adopt: (path: string[]) => boolean = () => false,
): EntryPlan {
  const ops: PlanOp[] = [];
  const managed: ManagedEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  const fatal: Diagnostic[] = [];
  const desiredPaths = desired.map((d) => d.path);
  // entries Forge owned for skills no longer in the request: remove while untouched
  for (const prev of previous) {
    if (desiredPaths.some((p) => samePath(p, prev.path))) continue;
    const cur = current(prev.path);
    if (cur === undefined) continue;
    if (isDeepStrictEqual(cur, prev.value)) ops.push({ kind: 'remove', path: prev.path });
    else diagnostics.push(userTookOver(prev, cur, file));
  }
  for (const want of desired) {
    const owned = previous.find((p) => samePath(p.path, want.path));
    const cur = current(want.path);
    const key = want.path.join('.');
    if (owned) {
      if (want.value !== undefined) {
        if (!isDeepStrictEqual(cur, want.value)) ops.push({ kind: 'set', entry: { skillId: want.skillId, path: want.path, value: want.value } });
        managed.push({ skillId: want.skillId, path: want.path, value: want.value });
      } else if (cur !== undefined) {
        if (isDeepStrictEqual(cur, owned.value)) ops.push({ kind: 'remove', path: want.path });
        else diagnostics.push(userTookOver(owned, cur, file));
      }
      continue;
    }
    if (cur === undefined) {
      if (want.value !== undefined) {
        ops.push({ kind: 'set', entry: { skillId: want.skillId, path: want.path, value: want.value } });
        managed.push({ skillId: want.skillId, path: want.path, value: want.value });
      }
      continue;
    }
    // a re-projection of a skill Forge already shows: an entry holding exactly Forge's value is Forge's
    if (want.value !== undefined && isDeepStrictEqual(cur, want.value) && adopt(want.path)) {
      managed.push({ skillId: want.skillId, path: want.path, value: want.value });
      continue;
    }
    // the user's own entry for this skill name
    if (want.value === undefined) {
      if (isDeepStrictEqual(cur, disabledValue)) diagnostics.push({ code: 'SF_ADAPTER_USER_OVERRIDE', severity: 'warning', file, errorCode: 'SF_E_CONFLICT',
        message: `${want.skillId} is enabled in Forge, but your own "${key}": ${JSON.stringify(cur)} in ${file} keeps "${want.skillName}" off`,
        hint: `Remove "${key}" from ${file} if you want the skill on; Forge never edits entries it did not write.` });
    } else if (!isDeepStrictEqual(cur, want.value)) {
      fatal.push({ code: 'SF_ADAPTER_OVERRIDE_CONFLICT', severity: 'error', file, errorCode: 'SF_E_CONFLICT',
        message: `${want.skillId} must be disabled, but ${file} already has your own "${key}": ${JSON.stringify(cur)}, which would keep "${want.skillName}" available`,
        hint: `Remove or change "${key}" in ${file} yourself (Forge does not overwrite your entries), then run the command again.` });
    }
  }
  return { ops, managed, diagnostics, fatal };
}

function userTookOver(prev: ManagedEntry, cur: unknown, file: string): Diagnostic {
  const key = prev.path.join('.');
  return { code: 'SF_ADAPTER_CONFIG_DRIFT', severity: 'warning', file,
    message: `"${key}" in ${file} was changed from Forge's ${JSON.stringify(prev.value)} to ${JSON.stringify(cur)}; Forge left your value in place and no longer manages it`,
    hint: `Delete "${key}" from ${file} if you no longer want it.` };
}
