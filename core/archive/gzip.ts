import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { constants, createGunzip, gzipSync } from 'node:zlib';
import { entryError } from './archive-error.js';
import type { ArchiveLimits } from './limits.js';

/** Fixed gzip parameters of release archives; changing any of them changes every archive's bytes. */
export const GZIP_LEVEL = 9;
/** OS byte written into every gzip header (3 = Unix), whatever platform packs. */
export const GZIP_OS_UNIX = 3;

/**
 * Gzip with a fixed header: mtime 0, no file name, XFL from the fixed level, OS byte 3. The
 * deflate stream comes from Node's bundled zlib at a fixed level, window and memLevel, so the
 * bytes are identical wherever the same zlib build runs (Node releases have shipped the same
 * deflate output for years; a zlib change would show up in the golden test in pack.test.ts).
 */
export function gzipDeterministic(data: Buffer): Buffer {
  const out = gzipSync(data, { level: GZIP_LEVEL, windowBits: 15, memLevel: 8, strategy: constants.Z_DEFAULT_STRATEGY });
  out.writeUInt32LE(0, 4); // MTIME
  out[8] = 2; // XFL: maximum compression (level 9)
  out[9] = GZIP_OS_UNIX;
  return out;
}

/**
 * Inflates a gzip stream while counting both sides: stops with `SF_E_ARCHIVE_LIMIT` as soon as the
 * inflated bytes pass `maxBytes`, or the ratio inflated/compressed passes the limit once
 * `ratioCheckMinBytes` have been inflated, so a gzip bomb is stopped at that floor (64 MiB by
 * default) instead of filling memory or disk, while a small, very repetitive SKIT still unpacks.
 */
export async function* gunzipMetered(
  source: AsyncIterable<Buffer>,
  limits: ArchiveLimits,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  let compressed = 0;
  let inflated = 0;
  const gunzip = createGunzip();
  let feedError: unknown;
  // held until the loop ends: after an early stop it is only the premature close we caused
  const feeding = pipeline(Readable.from(source), gunzip).catch((e: unknown) => {
    feedError = e;
  });
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      // bytes zlib has actually consumed; the feeder reads ahead, so its count would hide a bomb
      compressed = Math.max(1, gunzip.bytesWritten);
      if (inflated > maxBytes) {
        throw entryError('SF_E_ARCHIVE_LIMIT', undefined, `the gzip stream inflates to more than ${maxBytes} bytes`,
          'this looks like a decompression bomb; raise limits.maxTotalSize only if you trust the source', { limit: 'maxTotalSize', compressed, inflated });
      }
      if (inflated > limits.ratioCheckMinBytes && inflated > compressed * limits.maxCompressionRatio) {
        throw entryError('SF_E_ARCHIVE_LIMIT', undefined,
          `the gzip stream inflates more than ${limits.maxCompressionRatio} times (${inflated} bytes from ${compressed})`,
          'this looks like a decompression bomb; raise limits.maxCompressionRatio only if you trust the source', { limit: 'maxCompressionRatio', compressed, inflated });
      }
      yield chunk;
    }
  } finally {
    gunzip.destroy();
    await feeding;
  }
  // the inflated stream ended normally, so any feeding error is real (e.g. the file became unreadable)
  if (feedError !== undefined) throw feedError;
}
