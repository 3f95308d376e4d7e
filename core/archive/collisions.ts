import { collisionKey } from '../skit/safe-path.js';

/** Why a new entry cannot coexist with the entries seen before it. */
export interface EntryConflict {
  kind: 'duplicate' | 'case' | 'unicode-normalization' | 'file-vs-directory';
  /** the earlier path it conflicts with */
  prior: string;
}

/**
 * Incremental version of `findCollisions` (core/skit/safe-path.ts) for streamed archives: it keys
 * every path and every directory prefix on the same `collisionKey`, so two names that land on one
 * file on a case-insensitive or normalizing filesystem are caught before the second is written.
 * Unlike `findCollisions` it also knows which names are files, so a file reused as a directory
 * ("a" then "a/b") is refused. A repeated directory entry is harmless and allowed.
 */
export class CollisionTracker {
  /** collision key -> exact path and whether it is a file */
  private readonly seen = new Map<string, { path: string; isFile: boolean }>();

  /** Records `path`; returns the conflict instead when it collides with an earlier entry. */
  add(path: string, isFile: boolean): EntryConflict | null {
    const segments = path.split('/');
    // first pass: check everything, so a refused entry leaves no trace
    for (let i = 1; i <= segments.length; i++) {
      const prefix = segments.slice(0, i).join('/');
      const prefixIsFile = i === segments.length && isFile;
      const prior = this.seen.get(collisionKey(prefix));
      if (prior === undefined) continue;
      if (prior.path !== prefix) {
        const kind = prior.path.normalize('NFC') === prefix.normalize('NFC') ? 'unicode-normalization' : 'case';
        return { kind, prior: prior.path };
      }
      if (prior.isFile && prefixIsFile) return { kind: 'duplicate', prior: prior.path };
      if (prior.isFile || prefixIsFile) return { kind: 'file-vs-directory', prior: prior.path };
    }
    for (let i = 1; i <= segments.length; i++) {
      const prefix = segments.slice(0, i).join('/');
      const key = collisionKey(prefix);
      if (!this.seen.has(key)) this.seen.set(key, { path: prefix, isFile: i === segments.length && isFile });
    }
    return null;
  }
}
