import type { ConfigSnapshot } from './config-file.js';
import type { ManagedConfigEdit } from './managed.js';

/**
 * What a JSON host config was before Forge's first edit, and what it goes back to when Forge's
 * last entry leaves it: a file Forge created is deleted again, and an empty one (nothing or only
 * whitespace) gets its exact whitespace back, unless the user has written into it since.
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
 * Whether `text` is what Forge writes for an empty document: nothing, or `{}`, with whitespace
 * only. A comment (or anything else) is the user's: the file holding it is not Forge's to delete.
 */
export function isBareEmptyDocument(text: string): boolean {
  const bare = text.replace(/\s+/g, '');
  return bare === '' || bare === '{}';
}

/**
 * The text to write (null: delete the file) given the planned text and whether the document is
 * now empty with nothing of Forge's in it. A file Forge created (or found blank) is deleted (or
 * blanked) only when the planned text is exactly what Forge would write for an empty document;
 * one the user wrote comments or other text into keeps that text. A file that was blank and gets
 * Forge's first entry ends with a line ending like the files Forge writes.
 */
export function textToWrite(o: ConfigOrigin, snap: ConfigSnapshot, planned: string, emptyWithoutForge: boolean): string | null {
  const nothingLeft = emptyWithoutForge && isBareEmptyDocument(planned);
  if (nothingLeft && o.origin === 'missing') return null;
  if (nothingLeft && o.origin === 'empty') return snap.text.trim() === '' ? snap.text : (o.emptyText ?? '');
  if (snap.text.trim() === '' && planned !== snap.text) return planned + snap.shape.eol;
  return planned;
}
