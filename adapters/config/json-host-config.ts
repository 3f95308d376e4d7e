import { isDeepStrictEqual } from 'node:util';
import { SfError, type Diagnostic } from '../../core/errors/index.js';
import { editConfigFile } from './config-file.js';
import { configOrigin, textToWrite } from './origin.js';
import { getPath, isJsonObject, parseJsonConfig } from './json-edit.js';
import { emptyContainerText, removeJsonText, restoreEmptyContainer, setJsonText } from './json-text-edit.js';
import { planEntries, type DesiredEntry, type EmptiedContainer, type ExpandedValue, type ManagedConfigEdit, type ManagedEntry, type PlanOp } from './managed.js';
import { noteWrite, readWriteNote, skitOf, withNotedEntries } from './write-note.js';

export interface JsonReconcileOptions {
  file: string;
  backupDir: string;
  format: 'json' | 'jsonc';
  /** the edit recorded last time for this file, if any */
  previous?: ManagedConfigEdit;
  desired: DesiredEntry[];
  /** the host value that switches a skill off ('off', 'deny'): a user entry equal to it is not a conflict */
  disabledValue: unknown;
  /** a container the host also accepts as a plain string meaning `{ [wildcard]: value }` */
  expandable?: { path: string[]; wildcard: string };
  /** slots that may be adopted when they already hold Forge's value (see planEntries) */
  adopt?: (path: string[]) => boolean;
  /** checks the planned document before anything is written; errors abort the edit (SF_E_CONFLICT) */
  validate?: (doc: Record<string, unknown>) => Diagnostic[];
  /** run every check, write nothing */
  dryRun?: boolean;
}

export interface JsonReconcileResult {
  /** the record entry for this file, or undefined when Forge no longer has anything in it */
  edit?: ManagedConfigEdit;
  diagnostics: Diagnostic[];
}

/**
 * Brings Forge's entries in one JSON/JSONC host config to `desired`, merging into the user's text
 * (see planEntries for the ownership rules). Throws SF_E_CONFLICT without writing anything when a
 * user's own entry would keep a disabled skill available, SF_E_CONFIG when the file does not parse.
 */
export async function reconcileJsonConfig(o: JsonReconcileOptions): Promise<JsonReconcileResult> {
  let result: JsonReconcileResult = { diagnostics: [] };
  // the SKIT whose entries these are, by which Forge's write notes for this file are kept
  const ownerSkill = o.desired[0]?.skillId ?? o.previous?.managed[0]?.skillId;
  const owner = ownerSkill === undefined ? undefined : skitOf(ownerSkill);
  const outcome = await editConfigFile(o.file, o.backupDir, (snap) => {
    const doc = parseJsonConfig(snap.text, o.file);
    const note = owner === undefined ? undefined : readWriteNote(o.backupDir, o.file, owner);
    // entries Forge wrote in a command that was interrupted before its record was kept
    const previous = withNotedEntries(o.previous, note, doc, () => ({ file: o.file, format: o.format, origin: 'existing' as const, managed: [], created: [] }));
    const origin = configOrigin(previous, snap);
    const plan = planEntries((p) => getPath(doc, p), previous?.managed ?? [], o.desired, o.file, o.disabledValue, o.adopt);
    refuseIf(plan.fatal, o.file);
    const applied = applyOps(snap.text, plan.ops, snap.shape.eol, o, previous?.created ?? [], previous?.expanded ?? [], validEmptied(previous?.emptied));
    if (o.validate) refuseIf(o.validate(parseJsonConfig(applied.text, o.file)).filter((d) => d.severity === 'error'), o.file);
    const empty = plan.managed.length === 0 && isDeepStrictEqual(parseJsonConfig(applied.text, o.file), {});
    const next = textToWrite(origin, snap, applied.text, empty);
    result = {
      diagnostics: plan.diagnostics,
      edit: plan.managed.length === 0 ? undefined : {
        file: o.file, backup: previous?.backup, format: o.format, ...origin,
        managed: plan.managed, created: applied.created, ...(applied.expanded.length ? { expanded: applied.expanded } : {}),
        ...(applied.emptied.length ? { emptied: applied.emptied } : {}),
      },
    };
    return next;
  }, o.dryRun, async (_written, backup) => {
    if (result.edit && !result.edit.backup && backup) result.edit.backup = backup;
    if (owner !== undefined) await noteWrite(o.backupDir, o.file, owner, result.edit);
  });
  if (result.edit && !result.edit.backup && outcome.backup) result.edit.backup = outcome.backup;
  return result;
}

/** SF_E_CONFLICT carrying the findings, thrown before anything is written. */
function refuseIf(fatal: Diagnostic[], file: string): void {
  if (fatal.length === 0) return;
  throw new SfError('SF_E_CONFLICT', fatal.map((d) => d.message).join('\n'), { location: { file }, hint: fatal[0].hint, data: { diagnostics: fatal } });
}

const key = (p: string[]): string => JSON.stringify(p);

/** A hand-edited record's `emptied` that is not a list of { path, text } is no record. */
const validEmptied = (v: unknown): EmptiedContainer[] =>
  (Array.isArray(v) ? v : []).filter((e): e is EmptiedContainer => Array.isArray(e?.path) && e.path.every((k: unknown) => typeof k === 'string') && typeof e.text === 'string');

/**
 * The container `path` goes into (its deepest existing parent; the document at worst) when it is
 * empty but not bare (`{ }`, `{\n  }`, `{ /* c *\/ }`): what it holds, to give back when Forge's
 * last entry leaves it, since removal collapses an emptied container to `{}`.
 */
function emptiedBy(text: string, doc: unknown, path: string[]): EmptiedContainer | undefined {
  let at = path.length - 1;
  while (at > 0 && getPath(doc, path.slice(0, at)) === undefined) at--;
  const container = path.slice(0, at);
  const inner = emptyContainerText(text, container);
  return inner === undefined ? undefined : { path: container, text: inner };
}

function applyOps(text: string, ops: PlanOp[], eol: string, o: JsonReconcileOptions, prevCreated: string[][], prevExpanded: ExpandedValue[], prevEmptied: EmptiedContainer[]) {
  let created = [...prevCreated];
  let expanded = [...prevExpanded];
  const emptied = [...prevEmptied];
  for (const op of ops) {
    if (op.kind === 'set') {
      let doc = parseJsonConfig(text, o.file);
      if (o.expandable && isUnder(op.entry.path, o.expandable.path)) {
        const cur = getPath(doc, o.expandable.path);
        if (typeof cur === 'string') {
          text = setJsonText(text, o.expandable.path, { [o.expandable.wildcard]: cur }, eol, o.file);
          expanded.push({ path: o.expandable.path, original: cur });
          doc = parseJsonConfig(text, o.file);
        }
      }
      created = created.concat(missingParents(doc, op.entry, o.file));
      const held = getPath(doc, op.entry.path) === undefined ? emptiedBy(text, doc, op.entry.path) : undefined;
      if (held && !emptied.some((e) => key(e.path) === key(held.path))) emptied.push(held);
      text = setJsonText(text, op.entry.path, op.entry.value, eol, o.file);
    } else {
      text = removeJsonText(text, op.path, eol, o.file);
    }
  }
  // collapse what Forge expanded or created once it holds nothing of the user's
  for (const exp of [...expanded]) {
    const cur = getPath(parseJsonConfig(text, o.file), exp.path);
    if (o.expandable && isDeepStrictEqual(cur, { [o.expandable.wildcard]: exp.original })) {
      text = setJsonText(text, exp.path, exp.original, eol, o.file);
      expanded = expanded.filter((e) => e !== exp);
    }
  }
  for (const path of [...created].sort((a, b) => b.length - a.length)) {
    const cur = getPath(parseJsonConfig(text, o.file), path);
    if (cur === undefined) created = created.filter((c) => key(c) !== key(path));
    else if (isJsonObject(cur) && Object.keys(cur).length === 0) {
      text = removeJsonText(text, path, eol, o.file);
      created = created.filter((c) => key(c) !== key(path));
    }
  }
  // an emptied container of the user's gets back what it held once Forge's last entry has left it
  for (const e of emptied) text = restoreEmptyContainer(text, e.path, e.text, o.file);
  // kept while the container is there (Forge's entries may still be in it)
  const now = parseJsonConfig(text, o.file);
  return { text, created, expanded, emptied: emptied.filter((e) => e.path.length === 0 || getPath(now, e.path) !== undefined) };
}

const isUnder = (path: string[], parent: string[]): boolean => parent.every((k, i) => path[i] === k) && path.length > parent.length;

/** Parent objects `entry.path` needs that do not exist yet; a parent that is a non-object value is refused. */
function missingParents(doc: unknown, entry: ManagedEntry, file: string): string[][] {
  const out: string[][] = [];
  for (let i = 1; i < entry.path.length; i++) {
    const p = entry.path.slice(0, i);
    const v = getPath(doc, p);
    if (v === undefined) out.push(p);
    else if (!isJsonObject(v)) {
      throw new SfError('SF_E_CONFIG', `${file}: "${p.join('.')}" is ${JSON.stringify(v)}, not an object, so Forge cannot add "${entry.path.join('.')}"`, {
        location: { file, pointer: p.join('.') },
        hint: `Write "${p.join('.')}" as an object (e.g. {}) and run the command again; the file was not changed.`,
      });
    }
  }
  return out;
}
