import { createHash } from 'node:crypto';
import { SfError } from '../errors/index.js';
import { checkRelativePath, isAscii, PATH_PROBLEM_TEXT } from './safe-path.js';
import { compareCodeUnits, type ModeClass } from './tree.js';

/**
 * The canonical listing and digest behind every Forge content hash (spec: schemas/hashing.md).
 * Pure: data in, data out. The listing is one line per file, `<mode>\t<sha256>\t<path>\n`, sorted by
 * the UTF-8 bytes of the NFC path; the digest is sha256 over a domain header line plus the listing.
 */

/** One file as it takes part in a content hash. */
export interface HashEntry {
  /** relative path with forward slashes; normalized to NFC by the listing */
  path: string;
  mode: ModeClass;
  /** lowercase hex sha256 of the file bytes */
  sha256: string;
}

/** What is being hashed; each kind has its own domain header so a skill and a bundle never share a digest. */
export type HashKind = 'bundle' | 'skill';

export const HASH_DOMAIN: Record<HashKind, string> = {
  bundle: 'forge-skit-bundle/1\n',
  skill: 'forge-skit-skill/1\n',
};

/** The written form of a content hash: `sha256:<64 lowercase hex>`. */
export const HASH_STRING_PATTERN = /^sha256:[0-9a-f]{64}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** `sha256:<hex>` */
export function formatHash(hex: string): string {
  return `sha256:${hex}`;
}

/**
 * The normalized form of a relative path as it enters a listing: NFC, forward slashes. Paths that
 * are unsafe (absolute, `..`, control characters including TAB and LF, ...) are refused, because a
 * listing line must not be ambiguous and a hashed tree must be projectable on every OS.
 */
export function normalizeHashPath(path: string): string {
  // ASCII is already NFC; skipping normalize() matters when listing thousands of paths
  const ascii = isAscii(path);
  const nfc = ascii ? path : path.normalize('NFC');
  const problem = checkRelativePath(nfc);
  // a lone surrogate has no UTF-8 form: two such paths would encode to the same listing bytes
  const malformed = !ascii && LONE_SURROGATE.test(nfc);
  if (problem !== null || malformed || nfc.endsWith('/')) {
    const why = problem ? PATH_PROBLEM_TEXT[problem] : malformed ? 'it is not well-formed Unicode' : 'it names a directory';
    throw new SfError('SF_E_UNSAFE_PATH', `cannot hash path "${path}": ${why}`, {
      location: { file: path },
      hint: 'rename the file to a plain relative path (see `sf skit validate`)',
    });
  }
  return nfc;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Orders two strings by their UTF-8 bytes (= code point order) without encoding them. UTF-16 code
 * units already sort that way except where a surrogate (U+D800..U+DFFF, part of a code point above
 * U+FFFF) meets U+E000..U+FFFF, so only that case is remapped.
 */
export function compareUtf8(a: string, b: string): number {
  // ASCII strings compare the same by code unit: the engine's comparison is much faster
  if (isAscii(a) && isAscii(b)) return a < b ? -1 : a > b ? 1 : 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * A comparator that orders `paths` like compareUtf8: plain code-unit order when every one of them
 * is ASCII (one scan per path instead of two per comparison, which is most of sorting a listing
 * of thousands of paths), else compareUtf8 itself.
 */
export function utf8OrderFor(paths: Iterable<string>): (a: string, b: string) => number {
  for (const p of paths) if (!isAscii(p)) return compareUtf8;
  return compareCodeUnits;
}

/**
 * The canonical listing of `entries`: paths normalized, sorted by UTF-8 bytes, one
 * `<mode>\t<sha256>\t<path>\n` line each. Throws SF_E_PATH_COLLISION when two entries share a
 * normalized path and SF_E_UNSAFE_PATH for a path that cannot be listed.
 *
 * @example canonicalListing([{ path: 'a.md', mode: 'file', sha256: 'e3b0…' }]) // 'file\te3b0…\ta.md\n'
 */
export function canonicalListing(entries: readonly HashEntry[]): string {
  const rows = entries.map((e) => {
    if (e.mode !== 'file' && e.mode !== 'exec') throw new SfError('SF_E_INTERNAL', `invalid mode class "${String(e.mode)}" for ${e.path}`);
    if (!HEX_SHA256.test(e.sha256)) throw new SfError('SF_E_INTERNAL', `invalid sha256 "${e.sha256}" for ${e.path}`);
    return { path: normalizeHashPath(e.path), entry: e };
  });
  rows.sort((a, b) => compareUtf8(a.path, b.path));
  let listing = '';
  for (let i = 0; i < rows.length; i++) {
    const { path, entry } = rows[i];
    if (i > 0 && rows[i - 1].path === path) {
      throw new SfError('SF_E_PATH_COLLISION', `two files have the same normalized path "${path}"`, {
        location: { file: path },
        hint: 'paths that differ only in Unicode normalization (NFC/NFD) name the same file; rename one of them',
      });
    }
    listing += `${entry.mode}\t${entry.sha256}\t${path}\n`;
  }
  return listing;
}

/** sha256 over the domain header of `kind` followed by the canonical listing, as `sha256:<hex>`. */
export function digestListing(kind: HashKind, entries: readonly HashEntry[]): string {
  const hash = createHash('sha256');
  hash.update(HASH_DOMAIN[kind], 'ascii');
  hash.update(canonicalListing(entries), 'utf8');
  return formatHash(hash.digest('hex'));
}

/** A listing whose paths are normalized, checked and ordered, waiting for its digests. */
export interface PreparedListing<T> {
  /** normalized paths, in listing order */
  paths: string[];
  /** the entries behind `paths`, index-aligned */
  entries: T[];
}

/**
 * The first half of canonicalListing, for callers that know the paths before the digests (hashing
 * plans its listings while files are still being read): normalizes and sorts the paths, throwing
 * exactly what canonicalListing would throw for them (SF_E_UNSAFE_PATH, SF_E_PATH_COLLISION).
 * `normalized` memoizes path normalization across listings of the same SKIT (every skill that
 * receives a shared directory lists the same paths).
 */
export function prepareListing<T extends { path: string }>(entries: readonly T[], normalized: Map<string, string> = new Map()): PreparedListing<T> {
  const rows = entries.map((entry) => {
    let path = normalized.get(entry.path);
    if (path === undefined) normalized.set(entry.path, (path = normalizeHashPath(entry.path)));
    return { path, entry };
  });
  // listings are usually built in order already (skill projections are): then sorting is skipped
  const order = utf8OrderFor(rows.map((r) => r.path));
  if (!rows.every((r, i) => i === 0 || order(rows[i - 1].path, r.path) <= 0)) rows.sort((a, b) => order(a.path, b.path));
  for (let i = 1; i < rows.length; i++) {
    if (rows[i - 1].path === rows[i].path) {
      throw new SfError('SF_E_PATH_COLLISION', `two files have the same normalized path "${rows[i].path}"`, {
        location: { file: rows[i].path },
        hint: 'paths that differ only in Unicode normalization (NFC/NFD) name the same file; rename one of them',
      });
    }
  }
  return { paths: rows.map((r) => r.path), entries: rows.map((r) => r.entry) };
}


/**
 * The second half: `digestListing(kind, ...)` over prepared paths, given each entry's mode class
 * and sha256 (`rows`, index-aligned with `paths`; lowercase hex as the hashing writes it).
 */
export function digestPreparedListing(kind: HashKind, paths: readonly string[], rows: readonly { mode: ModeClass; sha256: string }[]): string {
  let listing = '';
  for (let i = 0; i < paths.length; i++) {
    const { mode, sha256 } = rows[i];
    if (mode !== 'file' && mode !== 'exec') throw new SfError('SF_E_INTERNAL', `invalid mode class "${String(mode)}" for ${paths[i]}`);
    // the digests come from the hashing (Buffer#toString('hex')): the length is checked, not every
    // character (a regex per row was most of this, in the tail of `sf skit hash`)
    if (typeof sha256 !== 'string' || sha256.length !== 64) throw new SfError('SF_E_INTERNAL', `invalid sha256 "${sha256}" for ${paths[i]}`);
    listing += `${mode}\t${sha256}\t${paths[i]}\n`;
  }
  const hash = createHash('sha256');
  hash.update(HASH_DOMAIN[kind], 'ascii');
  hash.update(listing, 'utf8');
  return formatHash(hash.digest('hex'));
}
