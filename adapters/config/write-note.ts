import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { hasErrno } from '../../core/errors/index.js';
import { getPath } from './json-edit.js';
import { mkdirDurableSync, removeFileDurable, writeFileAtomic } from './atomic-write.js';
import type { ManagedConfigEdit } from './managed.js';

/**
 * What Forge owns in one JSON host config after its latest write there, noted (per owner: a SKIT
 * id, or observability) just before that write replaces the file. The records that list Forge's
 * entries are committed only after the write, so a command killed in between leaves entries no
 * record mentions; the note tells them apart from the user's own identical entries when the
 * command is run again (recovery, a re-install), instead of guessing from the value alone.
 */
export type WriteNote = Pick<ManagedConfigEdit, 'origin' | 'emptyText' | 'backup' | 'managed' | 'created' | 'expanded' | 'emptied'>;

type NoteFile = { file: string; owners: Record<string, WriteNote> };

function notePath(backupDir: string, file: string): string {
  const hash = createHash('sha256').update(resolve(file)).digest('hex').slice(0, 8);
  return join(backupDir, 'write-notes', `${basename(file).replace(/[^A-Za-z0-9._-]/g, '_')}-${hash}.json`);
}

function readNotes(backupDir: string, file: string): NoteFile {
  try {
    const parsed = JSON.parse(readFileSync(notePath(backupDir, file), 'utf8')) as NoteFile;
    if (parsed && parsed.file === resolve(file) && parsed.owners && typeof parsed.owners === 'object') return parsed;
  } catch (e) {
    // a missing note, or one cut short by a crash while it was first written: nothing noted
    if (!hasErrno(e, 'ENOENT') && !(e instanceof SyntaxError)) throw e;
  }
  return { file: resolve(file), owners: {} };
}

export function readWriteNote(backupDir: string, file: string, owner: string): WriteNote | undefined {
  return readNotes(backupDir, file).owners[owner];
}

/** Notes what `owner` will own in `file` once the write in progress lands (undefined: nothing). */
export async function noteWrite(backupDir: string, file: string, owner: string, note: WriteNote | undefined): Promise<void> {
  const notes = readNotes(backupDir, file);
  const owned: WriteNote | undefined = note && note.managed.length > 0 ? {
    origin: note.origin, ...(note.emptyText !== undefined ? { emptyText: note.emptyText } : {}), ...(note.backup ? { backup: note.backup } : {}),
    managed: note.managed, created: note.created, ...(note.expanded?.length ? { expanded: note.expanded } : {}),
    ...(note.emptied?.length ? { emptied: note.emptied } : {}),
  } : undefined;
  if (isDeepStrictEqual(notes.owners[owner], owned)) return;
  if (owned) notes.owners[owner] = owned;
  else delete notes.owners[owner];
  const path = notePath(backupDir, file);
  if (Object.keys(notes.owners).length === 0) {
    await removeFileDurable(path);
    return;
  }
  mkdirDurableSync(join(backupDir, 'write-notes'), 0o700);
  await writeFileAtomic(path, `${JSON.stringify(notes)}\n`, { mode: 0o600 });
}

/**
 * `previous` (the record's ledger, if any) plus what the note says Forge wrote and the file still
 * holds exactly: an entry the user changed since is not taken back. The note's origin and backup
 * count only where no record had the file yet.
 */
export function withNotedEntries<T extends ManagedConfigEdit>(previous: T | undefined, note: WriteNote | undefined, doc: unknown, base: () => T): T | undefined {
  if (!note) return previous;
  const held = note.managed.filter((m) => isDeepStrictEqual(getPath(doc, m.path), m.value));
  if (held.length === 0) return previous;
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((k, i) => k === b[i]);
  const start = previous ?? { ...base(), origin: note.origin, ...(note.emptyText !== undefined ? { emptyText: note.emptyText } : {}), ...(note.backup ? { backup: note.backup } : {}) };
  const expanded = [...(start.expanded ?? []), ...(note.expanded ?? []).filter((x) => !(start.expanded ?? []).some((s) => same(s.path, x.path)))];
  const noted = Array.isArray(note.emptied) ? note.emptied : [];
  const emptied = [...(start.emptied ?? []), ...noted.filter((x) => !(start.emptied ?? []).some((s) => same(s.path, x.path)))];
  return {
    ...start,
    managed: [...start.managed.filter((m) => !held.some((h) => same(h.path, m.path))), ...held],
    created: [...start.created, ...note.created.filter((c) => !start.created.some((s) => same(s, c)))],
    ...(expanded.length ? { expanded } : {}),
    ...(emptied.length ? { emptied } : {}),
  };
}

/** The SKIT a skill id belongs to (`owner/name:skill` -> `owner/name`). */
export const skitOf = (skillId: string): string => skillId.slice(0, skillId.lastIndexOf(':'));
