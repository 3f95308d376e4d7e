import { readFileSync } from 'node:fs';
import { SfError, hasErrno } from '../../core/errors/index.js';
import { removeFileDurable, resolveWriteTarget, writeFileAtomic } from './atomic-write.js';
import { writeBackup } from './backup.js';
import { detectShape, restoreShape, type TextShape } from './text-shape.js';

/** A config file as read: text without BOM, its shape, and the raw bytes for the backup. */
export interface ConfigSnapshot {
  file: string;
  exists: boolean;
  bytes: Buffer | null;
  text: string;
  shape: TextShape;
}

/** Reads `file`; a missing file is an empty snapshot with `exists: false`. Synchronous: config files are small. */
export function readConfig(file: string): ConfigSnapshot {
  let bytes: Buffer | null = null;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    if (!hasErrno(e, 'ENOENT')) throw e;
  }
  const { shape, text } = detectShape(bytes ? bytes.toString('utf8') : '');
  return { file, exists: bytes !== null, bytes, text, shape };
}

/** What a transform wants: new text (without BOM), `null` to delete the file, `undefined` for no change. */
export type ConfigTransform = (snapshot: ConfigSnapshot) => string | null | undefined;

export interface EditOutcome {
  changed: boolean;
  /** backup of the previous bytes, written when an existing file was changed */
  backup?: string;
  /** the snapshot the transform saw last */
  before: ConfigSnapshot;
}

const MAX_ATTEMPTS = 3;

/**
 * One safe edit of a user's config file: read, transform (which must throw SF_E_CONFIG for a file
 * it cannot parse, before anything is written), back up the previous bytes, replace atomically.
 * If the file changes between our read and our write (the host rewrote it), the edit is redone
 * on the new content, a bounded number of times. `dryRun` stops after the transform.
 */
export async function editConfigFile(file: string, backupDir: string, transform: ConfigTransform, dryRun = false): Promise<EditOutcome> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const before = readConfig(file);
    const next = transform(before);
    // a preflight: the transform ran every check; nothing is written
    if (dryRun) return { changed: false, before };
    if (next === undefined || (next !== null && before.exists && next === before.text)) return { changed: false, before };
    if (next === null && !before.exists) return { changed: false, before };
    const backup = before.bytes && before.bytes.length > 0 ? await writeBackup(file, before.bytes, backupDir) : undefined;
    const current = readConfig(file);
    if (!sameBytes(current.bytes, before.bytes)) continue;
    if (next === null) {
      await removeFileDurable(await resolveWriteTarget(file));
    } else {
      await writeFileAtomic(file, restoreShape(next, before.shape));
    }
    return { changed: true, backup, before };
  }
  throw new SfError('SF_E_CONFLICT', `${file} kept changing while Forge tried to edit it`, {
    location: { file },
    hint: 'Close the agent or editor that is rewriting this file and run the command again.',
  });
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}
