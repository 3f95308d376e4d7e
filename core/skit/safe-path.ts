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
  | 'too-long';

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
};

const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
// C0/C1 controls and DEL
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0001-\u001f\u007f-\u009f]/;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Returns the first problem with `p` as a relative path inside a root, or null when it is safe.
 *
 * @example checkRelativePath('skills/a/SKILL.md') // null
 * @example checkRelativePath('../etc/passwd') // 'dotdot'
 */
export function checkRelativePath(p: string): PathProblem | null {
  if (p.length === 0) return 'empty';
  if (p.includes('\u0000')) return 'nul';
  if (CONTROL.test(p)) return 'control';
  if (BIDI.test(p)) return 'bidi';
  if (p.startsWith('\\\\') || p.startsWith('//')) return 'unc';
  if (p.includes('\\')) return 'backslash';
  if (/^[a-zA-Z]:/.test(p)) return 'drive';
  if (p.startsWith('/')) return 'absolute';
  if (Buffer.byteLength(p) > 1024) return 'too-long';
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
  }
  return null;
}

/** True when `p` is a safe relative path. */
export function isSafeRelativePath(p: string): boolean {
  return checkRelativePath(p) === null;
}

/** The key under which two paths collide on case-insensitive or normalizing filesystems. */
export function collisionKey(p: string): string {
  return p.normalize('NFC').toLowerCase().normalize('NFC');
}

export interface PathCollision {
  first: string;
  second: string;
  kind: 'case' | 'unicode-normalization' | 'duplicate';
}

/**
 * Finds paths that would land on the same file on a case-insensitive (macOS, Windows) or
 * normalizing (macOS NFD) filesystem, and exact duplicates. Also catches a file colliding with a
 * directory prefix of another path ("a" vs "A/b").
 */
export function findCollisions(paths: Iterable<string>): PathCollision[] {
  const seen = new Map<string, string>();
  const collisions: PathCollision[] = [];
  const note = (key: string, p: string) => {
    const prior = seen.get(key);
    if (prior === undefined) {
      seen.set(key, p);
      return;
    }
    if (prior === p) return;
    const kind = prior.normalize('NFC') === p.normalize('NFC') ? 'unicode-normalization' : 'case';
    collisions.push({ first: prior, second: p, kind });
  };
  const exact = new Set<string>();
  for (const raw of paths) {
    const p = raw.endsWith('/') ? raw.slice(0, -1) : raw;
    if (exact.has(p)) {
      collisions.push({ first: p, second: p, kind: 'duplicate' });
      continue;
    }
    exact.add(p);
    // every directory prefix of the path occupies its name too
    const segs = p.split('/');
    for (let i = 1; i <= segs.length; i++) {
      const prefix = segs.slice(0, i).join('/');
      note(collisionKey(prefix), prefix);
    }
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
