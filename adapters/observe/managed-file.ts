import { createHash } from 'node:crypto';
import { chmod, readFile } from 'node:fs/promises';
import { hasErrno, type Diagnostic } from '../../core/errors/index.js';
import { removeFileDurable, writeFileAtomic } from '../config/atomic-write.js';
import { writeBackup } from '../config/backup.js';
import type { ManagedFile } from './types.js';

/**
 * Whole files Forge owns (a hook script, a plugin): written atomically, recorded by hash, and
 * removed only while they still hold Forge's bytes, so a file the user changed is never deleted.
 */

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

async function readOrUndefined(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}

/**
 * Writes `content` at `path` unless it is already there. A different file at `path` that Forge
 * never wrote (no `previous` record of that path) is the user's: refused with a diagnostic. A file
 * Forge wrote before is Forge's and is brought back to its content (`sf observe update`); when
 * the user changed it since (it no longer has the recorded bytes), their version is first saved
 * to `backupDir` (the observe config backups), and a warning says where. Without a `backupDir`
 * such a file is refused like a foreign one (uninstall never deletes it either).
 */
export async function writeManagedFile(path: string, content: string, mode: number, previous: ManagedFile | undefined, backupDir?: string): Promise<{ file?: ManagedFile; diagnostics: Diagnostic[] }> {
  const want = sha256(content);
  const cur = await readOrUndefined(path);
  const diagnostics: Diagnostic[] = [];
  if (cur && sha256(cur) !== want && previous?.path !== path) {
    return { diagnostics: [{ code: 'SF_OBSERVE_FOREIGN_FILE', severity: 'error', file: path,
      message: `${path} exists and was not written by Forge (or was changed since); it was left as it is`,
      hint: 'move the file away (or restore Forge\'s version) and run `sf observe update`' }] };
  }
  if (cur && sha256(cur) !== want && sha256(cur) !== previous?.sha256) {
    if (!backupDir) {
      return { file: previous, diagnostics: [{ code: 'SF_OBSERVE_FILE_CHANGED', severity: 'error', file: path,
        message: `${path} was changed after Forge wrote it; it was left as it is`, hint: 'move the file away (it keeps your changes) and run `sf observe update`' }] };
    }
    const backup = await writeBackup(path, cur, backupDir);
    diagnostics.push({ code: 'SF_OBSERVE_FILE_CHANGED', severity: 'warning', file: path,
      message: `${path} was changed after Forge wrote it; Forge's version was written back and yours saved as ${backup}`,
      hint: 'to keep your changes, make them in another file: Forge rewrites this one on `sf observe update`' });
  }
  if (!cur || sha256(cur) !== want) {
    await writeFileAtomic(path, content, { mode });
  }
  await chmod(path, mode);
  return { file: { path, sha256: want }, diagnostics };
}

/** Removes a managed file if it still holds Forge's bytes; a changed one is kept and reported. */
export async function removeManagedFile(file: ManagedFile): Promise<Diagnostic[]> {
  const cur = await readOrUndefined(file.path);
  if (!cur) return [];
  if (sha256(cur) !== file.sha256) {
    return [{ code: 'SF_OBSERVE_FILE_CHANGED', severity: 'warning', file: file.path,
      message: `${file.path} was changed after Forge wrote it; it was not removed`, hint: 'delete it yourself if you no longer want it' }];
  }
  await removeFileDurable(file.path);
  return [];
}

/** Drift of a managed file: missing, or changed since Forge wrote it. */
export async function diagnoseManagedFile(file: ManagedFile, what: string): Promise<Diagnostic[]> {
  const cur = await readOrUndefined(file.path);
  if (!cur) return [{ code: 'SF_OBSERVE_DRIFT', severity: 'error', file: file.path, message: `${what} ${file.path} is missing`, hint: 'run `sf observe update` to write it again' }];
  if (sha256(cur) !== file.sha256) return [{ code: 'SF_OBSERVE_DRIFT', severity: 'warning', file: file.path, message: `${what} ${file.path} was changed after Forge wrote it`, hint: 'run `sf observe update` to restore Forge\'s version (it saves a backup of yours first, under $SF_HOME/backups/observe)' }];
  return [];
}
