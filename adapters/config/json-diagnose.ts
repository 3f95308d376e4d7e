import { isSfError, type Diagnostic } from '../../core/errors/index.js';
import type { HostContext } from '../../core/install/host-adapter.js';
import { memoized } from '../shared/memo.js';
import { readConfig, type ConfigSnapshot } from './config-file.js';
import { getPath, parseJsonConfig, type JsonObject } from './json-edit.js';
import { planEntries, type DesiredEntry, type ManagedConfigEdit } from './managed.js';

export const CONFIG_DRIFT = 'SF_DRIFT_CONFIG';
export const CONFIG_INVALID = 'SF_DRIFT_CONFIG_INVALID';
export const DISABLED_EXPOSED = 'SF_DRIFT_DISABLED_EXPOSED';

/** A host config Forge cannot read: reported, never repaired by rewriting. */
export function invalidConfig(file: string, e: unknown, host: string): Diagnostic[] {
  if (!isSfError(e, 'SF_E_CONFIG')) throw e;
  return [{ code: CONFIG_INVALID, severity: 'error', file, line: e.location?.line, column: e.location?.column, message: `${host} config ${e.message}`, hint: e.hint }];
}

/** A JSON/JSONC host config as read: its document, or why it does not parse (`error`). */
export interface ReadJsonConfig {
  snap: ConfigSnapshot;
  doc?: JsonObject;
  error?: unknown;
}

/**
 * `file` read and parsed once per `memo` (HostContext.memo): doctor checks hundreds of
 * installations against one settings file, and parsing it for each was quadratic. The document
 * is shared, so callers only read it. A file that cannot be read at all (a directory) rejects,
 * as readConfig throws.
 */
export function memoJsonConfig(file: string, memo: HostContext['memo']): Promise<ReadJsonConfig> {
  return memoized(`json-config\u0000${file}`, async () => {
    const snap = readConfig(file);
    try {
      return { snap, doc: parseJsonConfig(snap.text, file) };
    } catch (error) {
      return { snap, error };
    }
  }, memo);
}

/**
 * Config drift of Forge's per-skill entries in a JSON/JSONC host config, computed by planning the
 * reconcile without writing: a disabled skill whose entry is missing or changed is exposed
 * (error); an enabled skill Forge still switches off is drift (warning); user entries that keep a
 * disabled skill on are exposure too; `validate` adds host rules (e.g. later allow rules).
 */
export async function diagnoseJsonEntries(o: { file: string; host: string; previous?: ManagedConfigEdit; desired: DesiredEntry[]; disabledValue: unknown; validate?: (doc: Record<string, unknown>) => Diagnostic[]; memo: HostContext['memo'] }): Promise<Diagnostic[]> {
  const { doc, error } = await memoJsonConfig(o.file, o.memo);
  if (!doc) return invalidConfig(o.file, error, o.host);
  const plan = planEntries((p) => getPath(doc, p), o.previous?.managed ?? [], o.desired, o.file, o.disabledValue);
  const out: Diagnostic[] = [...plan.diagnostics];
  for (const f of plan.fatal) out.push({ ...f, code: DISABLED_EXPOSED });
  for (const op of plan.ops) {
    const key = (op.kind === 'set' ? op.entry.path : op.path).join('.');
    const want = o.desired.find((d) => d.path.join('.') === key);
    if (op.kind === 'set') {
      const cur = getPath(doc, op.entry.path);
      out.push({ code: DISABLED_EXPOSED, severity: 'error', file: o.file,
        message: `${op.entry.skillId} is disabled, but ${o.host}'s "${key}" is ${cur === undefined ? 'missing' : JSON.stringify(cur)} in ${o.file} (Forge wrote ${JSON.stringify(op.entry.value)})`,
        hint: 'run `sf skit doctor --fix` to restore it, or `sf skit enable` if you want the skill on' });
    } else {
      out.push({ code: CONFIG_DRIFT, severity: 'warning', file: o.file,
        message: `${want?.skillId ?? key} is enabled, but Forge's "${key}" entry is still in ${o.file}`,
        hint: 'run `sf skit doctor --fix` to remove it' });
    }
  }
  if (o.validate) out.push(...o.validate(doc));
  return out;
}
