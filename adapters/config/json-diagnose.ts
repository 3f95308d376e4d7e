import { isSfError, type Diagnostic } from '../../core/errors/index.js';
import { readConfig } from './config-file.js';
import { getPath, parseJsonConfig } from './json-edit.js';
import { planEntries, type DesiredEntry, type ManagedConfigEdit } from './managed.js';

export const CONFIG_DRIFT = 'SF_DRIFT_CONFIG';
export const CONFIG_INVALID = 'SF_DRIFT_CONFIG_INVALID';
export const DISABLED_EXPOSED = 'SF_DRIFT_DISABLED_EXPOSED';

/** A host config Forge cannot read: reported, never repaired by rewriting. */
export function invalidConfig(file: string, e: unknown, host: string): Diagnostic[] {
  if (!isSfError(e, 'SF_E_CONFIG')) throw e;
  return [{ code: CONFIG_INVALID, severity: 'error', file, line: e.location?.line, column: e.location?.column, message: `${host} config ${e.message}`, hint: e.hint }];
}

/**
 * Config drift of Forge's per-skill entries in a JSON/JSONC host config, computed by planning the
 * reconcile without writing: a disabled skill whose entry is missing or changed is exposed
 * (error); an enabled skill Forge still switches off is drift (warning); user entries that keep a
 * disabled skill on are exposure too; `validate` adds host rules (e.g. later allow rules).
 */
export async function diagnoseJsonEntries(o: { file: string; host: string; previous?: ManagedConfigEdit; desired: DesiredEntry[]; disabledValue: unknown; validate?: (doc: Record<string, unknown>) => Diagnostic[] }): Promise<Diagnostic[]> {
  const snap = readConfig(o.file);
  let doc: Record<string, unknown>;
  try {
    doc = parseJsonConfig(snap.text, o.file);
  } catch (e) {
    return invalidConfig(o.file, e, o.host);
  }
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
