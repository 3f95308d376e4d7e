import { landingPath } from '../../core/fs/contained.js';
import { isAbsolute } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import { editConfigFile } from '../config/config-file.js';
import type { ManagedConfigEdit } from '../config/managed.js';
import { onlyForgeBlocks, ownerOf, pathsToResolve, planCodexConfig, type CodexSkillState, type ResolvedPaths } from './skills-config.js';

export interface CodexReconcileResult {
  edit?: ManagedConfigEdit;
  diagnostics: Diagnostic[];
}

/**
 * Brings Forge's `[[skills.config]]` blocks in `file` (Codex's user config.toml) to `desired`,
 * with a backup and an atomic replace. A config.toml that Forge created is deleted again when
 * its last block goes and nothing else was added to it.
 */
export async function reconcileCodexConfig(o: { file: string; backupDir: string; previous?: ManagedConfigEdit; desired: CodexSkillState[]; dryRun?: boolean; root?: string }): Promise<CodexReconcileResult> {
  // this installation's blocks: its SKIT's, in its place (see CodexOwner)
  const owner = ownerOf(o.desired, o.previous?.managed ?? [], o.root);
  let result: CodexReconcileResult = { diagnostics: [] };
  const outcome = await editConfigFile(o.file, o.backupDir, (snap) => {
    // a file holding only other installations' blocks is one Forge created: the last of them deletes it
    const origin = o.previous?.origin ?? (!snap.exists || onlyForgeBlocks(snap.text) ? 'missing' : snap.text.trim() === '' ? 'empty' : 'existing');
    // what Forge put before each of its blocks is recorded and taken back with the block; a record
    // from before separators were kept has its blocks removed with one blank line each, and the
    // final newline it says Forge added
    const recorded = isStringMap(o.previous?.separators) ? o.previous.separators : undefined;
    const plan = planCodexConfig(snap.text, o.file, o.desired, snap.shape.eol, owner, recorded, resolvePaths(pathsToResolve(snap.text, o.file, o.desired)));
    const addedFinalNewline = o.previous?.addedFinalNewline === true && recorded === undefined;
    const separators = o.previous && !recorded ? {} : plan.separators;
    result = {
      diagnostics: plan.diagnostics,
      edit: plan.managed.length === 0 ? undefined : {
        file: o.file, backup: o.previous?.backup, format: 'toml', origin, managed: plan.managed, created: [],
        ...(addedFinalNewline ? { addedFinalNewline } : {}), ...(Object.keys(separators).length ? { separators } : {}),
      },
    };
    if (plan.managed.length === 0 && origin === 'missing' && plan.text.trim() === '') return null;
    if (plan.managed.length === 0 && addedFinalNewline && plan.text.endsWith(snap.shape.eol) && !plan.text.endsWith(snap.shape.eol + snap.shape.eol)) {
      return plan.text.slice(0, -snap.shape.eol.length);
    }
    return plan.text;
  }, o.dryRun);
  if (result.edit && !result.edit.backup && outcome.backup) result.edit.backup = outcome.backup;
  return result;
}

/** A hand-edited record's separators that are not all strings are no record. */
const isStringMap = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/**
 * The real path of each absolute path (Codex compares `[[skills.config]]` paths canonicalized: a
 * store path, or a path through a symlinked directory, names the same SKILL.md). A path that does
 * not exist yet (a skill about to be projected) gets the real path of its nearest existing parent
 * with the rest as written. Relative paths are left out: they match only as written.
 */
export function resolvePaths(paths: readonly string[]): ResolvedPaths {
  const out = new Map<string, string>();
  for (const p of paths) {
    if (!isAbsolute(p)) continue;
    const real = realOrParent(p);
    if (real !== undefined) out.set(p, real);
  }
  return out;
}

/** landingPath (core/fs), or undefined where it cannot be told (a directory that cannot be read): such a path matches only as written. */
function realOrParent(p: string): string | undefined {
  try {
    return landingPath(p);
  } catch {
    return undefined;
  }
}
