/**
 * core/archive: safe reading of tar / tar.gz / zip archives (one policy for every format,
 * private staging, one rename) and deterministic writing of release archives.
 */
export { DEFAULT_ARCHIVE_LIMITS, resolveArchiveLimits, type ArchiveLimits } from './limits.js';
export { unpackArchive, type UnpackOptions, type UnpackResult, type UnpackedFile } from './unpack.js';
export { readArchiveEntries, type ArchiveContents, type ArchiveFileEntry } from './read-entries.js';
export { readArchive, type ArchiveInput, type ReadArchiveOptions } from './read.js';
export { packTree, packTreeTar, PACK_MTIME, type PackOptions, type PackInput } from './pack.js';
export { detectFormat } from './detect.js';
export type { StripOption } from './strip.js';
export type { AcceptedEntry, ArchiveFormat, EntryHeader, EntryKind, EntrySink } from './types.js';
