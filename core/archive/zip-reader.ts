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

/** Where one entry's local header, data and data descriptor sit in the file. */
interface Span {
  start: number;
  /** end of the compressed data */
  end: number;
  /** the entry may be followed by a data descriptor (general purpose bit 3) */
  descriptor: boolean;
}

/** Checks one central-directory record (and its local header) without reading its data. */
async function plan(zip: ZipFile, e: Entry, policy: EntryPolicy, spans: Span[]): Promise<Planned | null> {
  const name = nameOf(e);
  const { limits } = policy;
  if (e.isEncrypted() || (e.generalPurposeBitFlag & 0x40) !== 0) {
    throw entryError('SF_E_ARCHIVE_FORMAT', name, 'entry is encrypted', 'zip encryption is not supported; create the zip without a password');
  }
  const kind = kindOf(e, name);
  const accepted = policy.admit({ name, kind, mode: unixMode(e) & 0o7777, size: e.uncompressedSize });
  if (accepted === null) {
    // a "./" root directory entry: nothing to extract, but its bytes are part of the layout
    const root = await zip.readLocalFileHeaderPromise(e);
    spans.push({ start: e.relativeOffsetOfLocalHeader, end: root.fileDataStart + e.compressedSize, descriptor: (e.generalPurposeBitFlag & 8) !== 0 });
    return null;
  }
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
  spans.push({ start: e.relativeOffsetOfLocalHeader, end: local.fileDataStart + e.compressedSize, descriptor: (e.generalPurposeBitFlag & 8) !== 0 });
  return { entry: e, accepted, start: e.relativeOffsetOfLocalHeader, end: local.fileDataStart + e.compressedSize };
}

/** Sizes a data descriptor can have: CRC and sizes (32- or 64-bit), with or without its signature. */
const DESCRIPTOR_SIZES = new Set([12, 16, 20, 24]);

/**
 * The entries the central directory lists must tile the file: from offset 0, each local header
 * right after the previous entry's data (and data descriptor), the central directory right after
 * the last one, and nothing between the central directory's last record and its end record. A
 * gap can hide a local entry that tools reading the local headers extract and this reader never
 * sees; records after the declared count are an entry other readers list (a parser mismatch).
 */
function checkLayout(spans: Span[], centralStart: number, centralEnd: number, afterCentral: Buffer): void {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let at = 0;
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i];
    const gap = s.start - at;
    if (gap !== 0 && !(sorted[i - 1]?.descriptor && DESCRIPTOR_SIZES.has(gap))) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, `the zip has ${gap} bytes at offset ${at} that no central-directory entry accounts for`,
        `${MALFORMED_HINT} (a hidden local entry would be extracted by some tools and not by others)`, { problem: 'gap' });
    }
    at = s.end;
  }
  const tail = centralStart - at;
  if (tail !== 0 && !(sorted[sorted.length - 1]?.descriptor && DESCRIPTOR_SIZES.has(tail))) {
    throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, `the zip has ${tail} bytes before its central directory that no entry accounts for`,
      `${MALFORMED_HINT} (a hidden local entry would be extracted by some tools and not by others)`, { problem: 'gap' });
  }
  // a zip64 end record may follow the records; anything else is a record beyond the declared count
  if (afterCentral.length > 0 && afterCentral.readUInt32LE(0) !== 0x06064b50) {
    throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, `the central directory continues past the ${spans.length} entr${spans.length === 1 ? "y" : "ies"} its end record declares (at offset ${centralEnd})`,
      `${MALFORMED_HINT} (other tools would list entries this reader does not)`, { problem: 'hidden-records' });
  }
}

/** Up to four bytes at `offset` that sit before the end-of-central-directory record (empty when the record starts there). */
async function bytesBeforeEnd(input: ZipInput, zip: ZipFile, offset: number): Promise<Buffer> {
  const endRecord = zip.fileSize - 22 - zip.comment.length;
  const length = Math.max(0, Math.min(4, endRecord - offset));
  if (length === 0) return Buffer.alloc(0);
  if ('buffer' in input) return input.buffer.subarray(offset, offset + length);
  const { open } = await import('node:fs/promises');
  const handle = await open(input.path, 'r');
  try {
    const out = Buffer.alloc(length);
    await handle.read(out, 0, length, offset);
    return out;
  } finally {
    await handle.close();
  }
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
    const spans: Span[] = [];
    // yauzl reads the records from the central directory's start onward (an internal cursor)
    const cursor = zip as unknown as { readEntryCursor: number };
    const centralStart = cursor.readEntryCursor;
    for await (const e of zip.eachEntry()) {
      const p = await plan(zip, e, policy, spans);
      if (p) planned.push(p);
    }
    checkOverlaps(planned);
    checkLayout(spans, centralStart, cursor.readEntryCursor, await bytesBeforeEnd(input, zip, cursor.readEntryCursor));
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
