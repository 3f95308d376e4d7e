import { unseenAncestors } from './file-index.js';

/**
 * Safe relative paths: the one rule set used by validation, hashing, archive unpacking and
 * projection. A safe path is a forward-slash relative path that stays inside its root on every
 * operating system. Pure functions, no IO.
 */

export type PathProblem =
  | 'empty'
  | 'absolute'
  | 'drive'
  | 'unc'
  | 'backslash'
  | 'dotdot'
  | 'dot-segment'
  | 'empty-segment'
  | 'nul'
  | 'control'
  | 'bidi'
  | 'reserved-name'
  | 'trailing-dot-or-space'
  | 'too-long'
  | 'windows-char'
  | 'invisible'
  | 'git-dir';

export const PATH_PROBLEM_TEXT: Record<PathProblem, string> = {
  empty: 'the path is empty',
  absolute: 'the path is absolute',
  drive: 'the path names a Windows drive (C:)',
  unc: 'the path is a UNC or device path (\\\\server\\share, //?/)',
  backslash: 'the path contains a backslash',
  dotdot: 'the path contains a ".." segment',
  'dot-segment': 'the path contains a "." segment',
  'empty-segment': 'the path contains an empty segment (//)',
  nul: 'the path contains a NUL byte',
  control: 'the path contains a control character',
  bidi: 'the path contains a bidirectional-override character',
  'reserved-name': 'a path segment is a reserved Windows device name (CON, NUL, COM1, ...)',
  'trailing-dot-or-space': 'a path segment ends with a dot or a space (Windows strips them)',
  'too-long': 'the path is longer than 1024 bytes or a segment longer than 255 bytes',
  'windows-char': 'the path contains a character Windows does not allow in names (< > : " | ? *)',
  invisible: 'the path contains an invisible character (zero-width space or joiner, soft hyphen, BOM, Hangul filler, tag character, variation selector, line separator), so it can pass for another name',
  'git-dir': 'a path segment is another spelling of ".git" (.GIT, .Git, GIT~1), which case-insensitive filesystems treat as a git directory',
};

const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
// C0/C1 controls and DEL
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0001-\u001f\u007f-\u009f]/;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// zero-width and format characters, Hangul fillers, the combining grapheme joiner, line and
// paragraph separators, tag characters and variation selectors (VS15/VS16 only after an emoji,
// where they choose its presentation)
const INVISIBLE =
  /[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2028\u2029\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0d\ufeff\uffa0\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]|(?<!\p{Extended_Pictographic})[\ufe0e\ufe0f]/u;
const WINDOWS_CHARS = /[<>:"|?*]/;
// ':' cannot occur in a PLAIN path
const WINDOWS_CHARS_PLAIN = /[<>"|?*]/;

/** `.git` spelled another way that a case-insensitive or 8.3-name filesystem resolves to `.git` (the exact `.git` is skipped by the tree walk). */
const isGitDirVariant = (segment: string): boolean => {
  const lower = segment.toLowerCase();
  return (lower === '.git' && segment !== '.git') || lower === 'git~1';
};

/**
 * Returns the first problem with `p` as a relative path inside a root, or null when it is safe.
 *
 * @example checkRelativePath('skills/a/SKILL.md') // null
 * @example checkRelativePath('../etc/passwd') // 'dotdot'
 */
export function checkRelativePath(p: string): PathProblem | null {
  if (p.length === 0) return 'empty';
  if (PLAIN.test(p)) return checkPlainPath(p);
  if (p.includes('\u0000')) return 'nul';
  if (CONTROL.test(p)) return 'control';
  if (BIDI.test(p)) return 'bidi';
  if (INVISIBLE.test(p)) return 'invisible';
  if (p.startsWith('\\\\') || p.startsWith('//')) return 'unc';
  if (p.includes('\\')) return 'backslash';
  if (/^[a-zA-Z]:/.test(p)) return 'drive';
  if (p.startsWith('/')) return 'absolute';
  if (Buffer.byteLength(p) > 1024) return 'too-long';
  if (WINDOWS_CHARS.test(p)) return 'windows-char';
  const segments = p.split('/');
  // a single trailing slash marks a directory entry in archives; tolerate it
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  for (const s of segments) {
    if (s === '') return 'empty-segment';
    if (s === '..') return 'dotdot';
    if (s === '.') return 'dot-segment';
    if (Buffer.byteLength(s) > 255) return 'too-long';
    if (RESERVED.test(s)) return 'reserved-name';
    if (/[. ]$/.test(s)) return 'trailing-dot-or-space';
    if (isGitDirVariant(s)) return 'git-dir';
  }
  return null;
}

// Printable ASCII without `\\` and `:`, which nearly every path is: it cannot hold NUL, control or
// bidi characters, a backslash or a drive letter, and its byte length is its length.
const PLAIN = /^[\x20-\x39\x3b-\x5b\x5d-\x7e]+$/;

/**
 * checkRelativePath for a PLAIN path, without the checks that cannot fail for one and without
 * splitting it (validation and hashing check every path of a SKIT, several times over).
 * Returns the same problem, in the same order of checks.
 */
function checkPlainPath(p: string): PathProblem | null {
  if (p.charCodeAt(0) === 0x2f) return p.charCodeAt(1) === 0x2f ? 'unc' : 'absolute';
  if (p.length > 1024) return 'too-long';
  if (WINDOWS_CHARS_PLAIN.test(p)) return 'windows-char';
  let end = p.length;
  // a single trailing slash marks a directory entry in archives; tolerate it
  if (end > 1 && p.charCodeAt(end - 1) === 0x2f) end--;
  for (let start = 0; start <= end; ) {
    let cut = p.indexOf('/', start);
    if (cut === -1 || cut > end) cut = end;
    const n = cut - start;
    if (n === 0) return 'empty-segment';
    const first = p.charCodeAt(start);
    if (first === 0x2e && n === 1) return 'dot-segment';
    if (first === 0x2e && n === 2 && p.charCodeAt(start + 1) === 0x2e) return 'dotdot';
    if (n > 255) return 'too-long';
    // every reserved name starts with c, p, a, n or l
    const lower = first | 0x20;
    if ((lower === 0x63 || lower === 0x70 || lower === 0x61 || lower === 0x6e || lower === 0x6c) && RESERVED.test(p.slice(start, cut))) return 'reserved-name';
    const last = p.charCodeAt(cut - 1);
    if (last === 0x2e || last === 0x20) return 'trailing-dot-or-space';
    if ((n === 4 && first === 0x2e) || (n === 5 && lower === 0x67)) {
      if (isGitDirVariant(p.slice(start, cut))) return 'git-dir';
    }
    start = cut + 1;
  }
  return null;
}

/** True when `p` is a safe relative path. */
export function isSafeRelativePath(p: string): boolean {
  return checkRelativePath(p) === null;
}

/** The key under which two paths collide on case-insensitive or normalizing filesystems. */
export function collisionKey(p: string): string {
  // ASCII needs no normalization (most paths: skips two normalize() calls per path)
  if (isAscii(p)) return p.toLowerCase();
  // upper-casing first folds what lower-casing alone keeps apart, as APFS and NTFS do: "ß" and
  // "SS", "ﬁ" and "FI", "ſ" and "s", "ς" and "σ"
  return p.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** True for an all-ASCII string: already NFC, and ordered the same by code units as by UTF-8 bytes. */
export const isAscii = (s: string): boolean => ASCII_ONLY.test(s);

export interface PathCollision {
  first: string;
  second: string;
  kind: 'case' | 'unicode-normalization' | 'duplicate';
}

/**
 * Finds paths that would land on the same file on a case-insensitive (macOS, Windows) or
 * normalizing (macOS NFD) filesystem, and exact duplicates. Also catches a file colliding with a
 * directory prefix of another path ("a" vs "A/b"). Each colliding name is reported once, with the
 * first name of its key (a directory that collides is not reported again for every file in it);
 * each repeated path is reported as a duplicate.
 */
export function findCollisions(paths: Iterable<string>): PathCollision[] {
  const seen = new Map<string, string>();
  // exact names already keyed: a SKIT's files share a few hundred directories
  const noted = new Set<string>();
  const collisions: PathCollision[] = [];
  const note = (p: string) => {
    if (noted.has(p)) return;
    noted.add(p);
    const key = collisionKey(p);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, p);
    else if (first !== p) collisions.push({ first, second: p, kind: first.normalize('NFC') === p.normalize('NFC') ? 'unicode-normalization' : 'case' });
  };
  const exact = new Set<string>();
  for (const raw of paths) {
    const p = raw.endsWith('/') ? raw.slice(0, -1) : raw;
    if (exact.has(p)) {
      collisions.push({ first: p, second: p, kind: 'duplicate' });
      continue;
    }
    exact.add(p);
    // every directory prefix of the path occupies its name too; the new ones are keyed outermost first
    const fresh = unseenAncestors(p, noted);
    for (let i = fresh.length - 1; i >= 0; i--) note(fresh[i]);
    note(p);
  }
  return collisions;
}

/** Joins safe relative path segments with forward slashes. */
export function joinRelative(...parts: string[]): string {
  return parts.filter((x) => x.length > 0).join('/').replace(/\/+/g, '/');
}

/** True when `child` equals `parent` or lies below it (both safe relative paths). */
export function isWithin(child: string, parent: string): boolean {
  if (parent === '' || parent === '.') return true;
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : parent + '/');
}
