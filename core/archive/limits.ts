import { SfError } from '../errors/index.js';

/**
 * Every limit applied when reading an archive, in one place. Each number can be overridden per
 * call (`{ limits: { maxEntries: 50_000 } }`); overrides must be positive integers (the ratio may
 * be fractional). The defaults follow shared/research/reliability-anchors.md §7.
 */
export interface ArchiveLimits {
  /** Entries (files and directories) in one archive. Default 10,000. */
  maxEntries: number;
  /** Uncompressed bytes of one file. Default 64 MiB. */
  maxEntrySize: number;
  /** Uncompressed bytes of all files together. Default 200 MiB. */
  maxTotalSize: number;
  /**
   * Uncompressed / compressed bytes, for a gzip stream as it inflates and for each zip entry and
   * whole zip as declared. Default 100 (the usual zip-bomb heuristic).
   */
  maxCompressionRatio: number;
  /**
   * The ratio is only enforced once this many bytes have been inflated. Default 64 MiB (the
   * per-file limit): below it the absolute limits already bound a bomb, and a valid SKIT with a
   * very repetitive file (a CSV table compresses 400 times) must unpack from its own archive. Above
   * it the ratio stops a bomb of many entries long before the 200 MiB total.
   */
  ratioCheckMinBytes: number;
  /** UTF-8 bytes of one entry path. Default 1024, which is also the ceiling of the safe-path
   * rules (core/skit/safe-path.ts), so raising it has no effect beyond 1024. */
  maxPathBytes: number;
  /** Path segments of one entry path. Default 64. */
  maxPathDepth: number;
  /** Bytes of one pax extended header or GNU long-name record. Default 64 KiB. */
  maxExtensionHeaderBytes: number;
}

const MiB = 1024 * 1024;

/** The defaults; frozen so nobody changes them for everyone by accident. */
export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 10_000,
  maxEntrySize: 64 * MiB,
  maxTotalSize: 200 * MiB,
  maxCompressionRatio: 100,
  ratioCheckMinBytes: 64 * MiB,
  maxPathBytes: 1024,
  maxPathDepth: 64,
  maxExtensionHeaderBytes: 64 * 1024,
});

/**
 * Upper bound on the raw (decompressed) tar stream, derived from the limits above: file data, plus
 * 3 KiB per entry (header, padding and a typical pax header), one maximal extension header, and
 * 20 KiB for the end marker and record padding (GNU tar pads to 10 KiB records). Zero blocks after
 * the end marker count too, so an endless stream of zeros is stopped.
 */
export function maxTarStreamBytes(limits: ArchiveLimits): number {
  return limits.maxTotalSize + limits.maxEntries * 3072 + limits.maxExtensionHeaderBytes + 20 * 1024;
}

/** Merges `overrides` over the defaults and checks every value. */
export function resolveArchiveLimits(overrides: Partial<ArchiveLimits> = {}): ArchiveLimits {
  const limits: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS };
  for (const [key, value] of Object.entries(overrides) as [keyof ArchiveLimits, unknown][]) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_ARCHIVE_LIMITS)) {
      throw new SfError('SF_E_USAGE', `unknown archive limit "${key}"`, {
        hint: `known limits: ${Object.keys(DEFAULT_ARCHIVE_LIMITS).join(', ')}`,
      });
    }
    const ok = typeof value === 'number' && Number.isFinite(value) && value > 0 &&
      (key === 'maxCompressionRatio' || Number.isInteger(value));
    if (!ok) {
      throw new SfError('SF_E_USAGE', `archive limit ${key} must be a positive ${key === 'maxCompressionRatio' ? 'number' : 'integer'}, got ${String(value)}`, {
        hint: `the default is ${DEFAULT_ARCHIVE_LIMITS[key]}`,
      });
    }
    limits[key] = value as number;
  }
  return limits;
}
