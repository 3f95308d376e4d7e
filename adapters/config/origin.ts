import type { ConfigSnapshot } from './config-file.js';
import type { ManagedConfigEdit } from './managed.js';

/**
 * What a JSON host config was before Forge's first edit, and what it goes back to when Forge's
 * last entry leaves it: a file Forge created is deleted again, and an empty one (nothing or only
 * whitespace) gets its exact whitespace back.
 */

export interface ConfigOrigin {
  origin: ManagedConfigEdit['origin'];
  /** the whitespace an 'empty' file held (absent when it held nothing, or in older records) */
  emptyText?: string;
}

/** The origin recorded at Forge's first edit of the file, or the one `snap` shows now. */
export function configOrigin(previous: ConfigOrigin | undefined, snap: ConfigSnapshot): ConfigOrigin {
  if (previous) return { origin: previous.origin, ...(typeof previous.emptyText === 'string' ? { emptyText: previous.emptyText } : {}) };
  if (!snap.exists) return { origin: 'missing' };
  if (snap.text.trim() !== '') return { origin: 'existing' };
  return { origin: 'empty', ...(snap.text !== '' ? { emptyText: snap.text } : {}) };
}

/**
 * The text to write (null: delete the file) given the planned text and whether the document is
 * now empty with nothing of Forge's in it. A file that was blank and gets Forge's first entry
 * ends with a line ending like the files Forge writes.
 */
export function textToWrite(o: ConfigOrigin, snap: ConfigSnapshot, planned: string, emptyWithoutForge: boolean): string | null {
  if (emptyWithoutForge && o.origin === 'missing') return null;
  if (emptyWithoutForge && o.origin === 'empty') return snap.text.trim() === '' ? snap.text : (o.emptyText ?? '');
  if (snap.text.trim() === '' && planned !== snap.text) return planned + snap.shape.eol;
  return planned;
}
