import type { ModeClass } from '../skit/tree.js';

/** Entry kinds as archives describe them; only `file` and `directory` are ever accepted. */
export type EntryKind =
  | 'file'
  | 'directory'
  | 'symlink'
  | 'hardlink'
  | 'character-device'
  | 'block-device'
  | 'fifo'
  | 'socket'
  | 'other';

/** What a format reader knows about an entry before its data is read. */
export interface EntryHeader {
  /** the name exactly as the archive gives it (after pax / GNU long-name substitution) */
  name: string;
  kind: EntryKind;
  /** permission bits as stored (0 when the format has none) */
  mode: number;
  /** declared uncompressed size in bytes */
  size: number;
  /** symlink / hardlink target, reported in refusals */
  linkTarget?: string;
  /** where the name came from, reported in refusals (e.g. "pax path", "GNU long name") */
  nameSource?: string;
}

/** An entry that passed the policy: a safe relative path, a file or a directory. */
export interface AcceptedEntry {
  /** safe relative path with forward slashes, no trailing slash */
  path: string;
  kind: 'file' | 'directory';
  /** `exec` when any execute bit was set; written as 0755, otherwise 0644 */
  mode: ModeClass;
  size: number;
}

/** Where a reader delivers accepted entries (the staging directory, or memory). */
export interface EntrySink {
  directory(entry: AcceptedEntry): Promise<void>;
  /** `data` is metered: it throws when the entry delivers more or fewer bytes than allowed. */
  file(entry: AcceptedEntry, data: AsyncIterable<Buffer>): Promise<void>;
}

/** Archive formats we read. */
export type ArchiveFormat = 'tar' | 'tar.gz' | 'zip';
