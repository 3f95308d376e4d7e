import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { SfError, hasErrno, isSfError } from '../errors/index.js';
import { MALFORMED_HINT } from './archive-error.js';
import { detectFormat } from './detect.js';
import { EntryPolicy } from './entry-policy.js';
import { gunzipMetered } from './gzip.js';
import { maxTarStreamBytes, resolveArchiveLimits, type ArchiveLimits } from './limits.js';
import { readTar } from './tar-reader.js';
import type { AcceptedEntry, ArchiveFormat, EntrySink } from './types.js';
import { readZip } from './zip-reader.js';

/** An archive on disk (path) or in memory. */
export type ArchiveInput = string | Buffer;

export interface ReadArchiveOptions {
  /** overrides of DEFAULT_ARCHIVE_LIMITS */
  limits?: Partial<ArchiveLimits>;
}

export interface ReadArchiveResult {
  format: ArchiveFormat;
  /** accepted entries in archive order (wrapper directory not yet stripped) */
  entries: AcceptedEntry[];
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r').catch((e: unknown) => {
    if (!hasErrno(e, 'ENOENT')) throw e;
    throw new SfError('SF_E_NOT_FOUND', `the archive ${path} does not exist`, { location: { file: path }, hint: 'check the path', cause: e });
  });
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, 512, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Turns whatever a parser or zlib threw into the archive error it means: SfErrors pass through,
 * filesystem errors become SF_E_IO, everything else (bad checksum, unexpected end, invalid
 * signature, zlib data error) is SF_E_ARCHIVE_MALFORMED.
 */
export function asArchiveError(e: unknown, displayName: string): SfError {
  if (isSfError(e)) return e;
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err === 'object' && typeof err.syscall === 'string') {
    return new SfError('SF_E_IO', `could not read or write while unpacking ${displayName}: ${err.message}`, {
      location: err.path ? { file: err.path } : undefined,
      hint: hasErrno(err, 'ENOSPC') ? 'free some disk space and retry' : 'check the path and its permissions',
      cause: e,
    });
  }
  const raw = e instanceof Error ? e.message : String(e);
  const message = raw === 'Unexpected end of data' ? 'it ends in the middle of an entry (truncated)' : raw;
  return new SfError('SF_E_ARCHIVE_MALFORMED', `${displayName} is malformed: ${message}`, { hint: MALFORMED_HINT, cause: e });
}

/**
 * Reads `input`, detecting tar / tar.gz / zip by magic bytes, checks every entry with one
 * EntryPolicy, and hands accepted entries to `sink` as they stream. Throws SF_E_ARCHIVE_FORMAT,
 * SF_E_ARCHIVE_UNSAFE, SF_E_ARCHIVE_MALFORMED or SF_E_ARCHIVE_LIMIT; the sink may have received
 * entries before a refusal, so callers write into private staging only.
 */
export async function readArchive(input: ArchiveInput, sink: EntrySink, options: ReadArchiveOptions = {}): Promise<ReadArchiveResult> {
  const limits = resolveArchiveLimits(options.limits);
  const displayName = typeof input === 'string' ? basename(input) : 'the archive';
  try {
    const head = typeof input === 'string' ? await readHead(input) : input.subarray(0, 512);
    const format = detectFormat(head, displayName);
    const policy = new EntryPolicy(limits);
    let entries: AcceptedEntry[];
    if (format === 'zip') {
      entries = await readZip(typeof input === 'string' ? { path: input } : { buffer: input }, policy, sink);
    } else {
      const raw = (typeof input === 'string' ? createReadStream(input) : [input]) as AsyncIterable<Buffer>;
      const tar = format === 'tar.gz' ? gunzipMetered(raw, limits, maxTarStreamBytes(limits)) : raw;
      entries = await readTar(tar, policy, sink);
    }
    policy.finish();
    return { format, entries };
  } catch (e) {
    throw asArchiveError(e, displayName);
  }
}
