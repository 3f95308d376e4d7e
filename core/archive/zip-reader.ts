import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { checkRelativePath } from '../skit/safe-path.js';
import { displayEntryName, entryError, MALFORMED_HINT } from './archive-error.js';
import type { EntryPolicy } from './entry-policy.js';
import type { AcceptedEntry, EntryKind, EntrySink } from './types.js';

export type ZipInput = { buffer: Buffer } | { path: string };

const UNIX_TYPES: Record<number, EntryKind> = {
  0o100000: 'file',
  0o040000: 'directory',
  0o120000: 'symlink',
  0o020000: 'character-device',
  0o060000: 'block-device',
  0o010000: 'fifo',
  0o140000: 'socket',
};

const YAUZL_OPTIONS = { decodeStrings: false, validateEntrySizes: false, autoClose: false, strictFileNames: true } as const;

/** Unix mode bits, when the entry was made on Unix (version made by, high byte 3). */
const unixMode = (e: Entry) => ((e.versionMadeBy >> 8) === 3 ? e.externalFileAttributes >>> 16 : 0);

function kindOf(e: Entry, name: string): EntryKind {
  const type = unixMode(e) & 0o170000;
  if (type !== 0) return UNIX_TYPES[type] ?? 'other';
  if (name.endsWith('/') || (e.externalFileAttributes & 0x10) !== 0) return 'directory';
  return 'file';
}

/** The entry name: the Info-ZIP Unicode Path field when valid, else the raw name (UTF-8 or CP437). */
function nameOf(e: Entry): string {
  // CP437 shows control bytes as glyphs, but other unzip tools write them raw: refuse them here
  const control = e.fileNameRaw.findIndex((b) => b < 0x20 || b === 0x7f);
  if (control !== -1) {
    throw entryError('SF_E_ARCHIVE_UNSAFE', e.fileNameRaw.toString('latin1'), `the raw file name contains ${e.fileNameRaw[control] === 0 ? 'a NUL byte' : 'a control character'}`,
      'rename the file without control characters and re-create the zip', { problem: e.fileNameRaw[control] === 0 ? 'nul' : 'control' });
  }
  const name = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, true);
  const raw = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, [], true);
  // tools that ignore the Unicode Path field extract under the raw name: it must be safe too
  if (raw !== name && checkRelativePath(raw.replace(/\/$/, '')) !== null) {
    throw entryError('SF_E_ARCHIVE_UNSAFE', raw, `the raw file name differs from its Unicode Path field ("${displayEntryName(name)}") and is unsafe`,
      're-create the zip with UTF-8 file names', { problem: 'ambiguous-name' });
  }
  return name;
}

interface Planned {
  entry: Entry;
  accepted: AcceptedEntry;
  start: number;
  end: number;
}

/** Checks one central-directory record (and its local header) without reading its data. */
async function plan(zip: ZipFile, e: Entry, policy: EntryPolicy): Promise<Planned | null> {
  const name = nameOf(e);
  const { limits } = policy;
  if (e.isEncrypted() || (e.generalPurposeBitFlag & 0x40) !== 0) {
    throw entryError('SF_E_ARCHIVE_FORMAT', name, 'entry is encrypted', 'zip encryption is not supported; create the zip without a password');
  }
  const kind = kindOf(e, name);
  const accepted = policy.admit({ name, kind, mode: unixMode(e) & 0o7777, size: e.uncompressedSize });
  if (accepted === null) return null; // a "./" root directory entry
  if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
    throw entryError('SF_E_ARCHIVE_FORMAT', name, `entry uses compression method ${e.compressionMethod}`, 'use stored (0) or deflate (8) compression');
  }
  if (e.compressionMethod === 0 && e.compressedSize !== e.uncompressedSize) {
    throw entryError('SF_E_ARCHIVE_MALFORMED', name, `stored entry declares ${e.compressedSize} compressed but ${e.uncompressedSize} uncompressed bytes`, MALFORMED_HINT);
  }
  if (e.uncompressedSize > limits.ratioCheckMinBytes && e.uncompressedSize > Math.max(e.compressedSize, 1) * limits.maxCompressionRatio) {
    throw entryError('SF_E_ARCHIVE_LIMIT', name, `entry inflates ${Math.round(e.uncompressedSize / Math.max(e.compressedSize, 1))} times, over the ratio limit of ${limits.maxCompressionRatio}`,
      'this looks like a zip bomb; raise limits.maxCompressionRatio only if you trust the source', { limit: 'maxCompressionRatio' });
  }
  const local = await zip.readLocalFileHeaderPromise(e);
  const mismatch =
    !local.fileName.equals(e.fileNameRaw) ? 'file name'
    : local.compressionMethod !== e.compressionMethod ? 'compression method'
    : (local.generalPurposeBitFlag & 1) !== (e.generalPurposeBitFlag & 1) ? 'encryption flag'
    : (local.generalPurposeBitFlag & 8) === 0 && local.crc32 !== e.crc32 ? 'CRC-32'
    : (local.generalPurposeBitFlag & 8) === 0 && local.compressedSize !== 0xffffffff && local.compressedSize !== e.compressedSize ? 'compressed size'
    : (local.generalPurposeBitFlag & 8) === 0 && local.uncompressedSize !== 0xffffffff && local.uncompressedSize !== e.uncompressedSize ? 'uncompressed size'
    : null;
  if (mismatch) {
    throw entryError('SF_E_ARCHIVE_MALFORMED', name, `the local header and the central directory disagree on the ${mismatch}`,
      `${MALFORMED_HINT} (tools that read the local headers would see different files)`, { problem: 'local-central-mismatch', field: mismatch });
  }
  return { entry: e, accepted, start: e.relativeOffsetOfLocalHeader, end: local.fileDataStart + e.compressedSize };
}

/** Overlapping entries share compressed bytes: the "overlapping files" zip-bomb construction. */
function checkOverlaps(planned: Planned[]): void {
  const byStart = [...planned].sort((a, b) => a.start - b.start);
  for (let i = 1; i < byStart.length; i++) {
    if (byStart[i].start < byStart[i - 1].end) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', byStart[i].accepted.path, `entry overlaps the data of "${byStart[i - 1].accepted.path}"`,
        `${MALFORMED_HINT} (overlapping entries are a zip-bomb technique)`, { problem: 'overlap' });
    }
  }
}

async function* crcChecked(data: AsyncIterable<Buffer>, expected: number, path: string): AsyncGenerator<Buffer> {
  let crc = 0;
  for await (const chunk of data) {
    crc = crc32(chunk, crc);
    yield chunk;
  }
  if (crc >>> 0 !== expected >>> 0) {
    throw entryError('SF_E_ARCHIVE_MALFORMED', path, 'entry data does not match its CRC-32', MALFORMED_HINT, { problem: 'crc' });
  }
}

/**
 * Reads a zip with yauzl in two passes. The first checks every central-directory record and its
 * local header (names, kinds, sizes, ratios, overlaps, local/central agreement) before any byte is
 * written; the second inflates each file through the policy's meter and a CRC-32 check.
 */
export async function readZip(input: ZipInput, policy: EntryPolicy, sink: EntrySink): Promise<AcceptedEntry[]> {
  const zip = 'buffer' in input ? await yauzl.fromBufferPromise(input.buffer, YAUZL_OPTIONS) : await yauzl.openPromise(input.path, YAUZL_OPTIONS);
  try {
    const { limits } = policy;
    if (zip.entryCount > limits.maxEntries) {
      throw entryError('SF_E_ARCHIVE_LIMIT', undefined, `the zip has ${zip.entryCount} entries, over the limit of ${limits.maxEntries}`,
        'split the content, or raise limits.maxEntries if you trust the source', { limit: 'maxEntries' });
    }
    const planned: Planned[] = [];
    for await (const e of zip.eachEntry()) {
      const p = await plan(zip, e, policy);
      if (p) planned.push(p);
    }
    checkOverlaps(planned);
    const declared = planned.reduce((sum, p) => sum + p.entry.uncompressedSize, 0);
    if (declared > limits.ratioCheckMinBytes && declared > zip.fileSize * limits.maxCompressionRatio) {
      throw entryError('SF_E_ARCHIVE_LIMIT', undefined, `the zip inflates ${Math.round(declared / zip.fileSize)} times, over the ratio limit of ${limits.maxCompressionRatio}`,
        'this looks like a zip bomb; raise limits.maxCompressionRatio only if you trust the source', { limit: 'maxCompressionRatio' });
    }
    for (const { entry, accepted } of planned) {
      if (accepted.kind === 'directory') {
        await sink.directory(accepted);
        continue;
      }
      const stream = await zip.openReadStreamPromise(entry);
      try {
        await sink.file(accepted, policy.meter(accepted, crcChecked(stream, entry.crc32, accepted.path)));
      } finally {
        stream.destroy();
      }
    }
    return planned.map((p) => p.accepted);
  } finally {
    zip.close();
  }
}
