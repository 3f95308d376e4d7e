// fs.promises is read when first used: the sync walk (tree-sync.ts) never loads node:fs/promises
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

/** Mode class of a tree entry. Only two classes exist so hashes do not depend on umask or OS. */
export type ModeClass = 'file' | 'exec';

export interface TreeFile {
  /** normalized relative path with forward slashes */
  path: string;
  mode: ModeClass;
  size: number;
  /** absolute path on disk */
  abs: string;
}

/**
 * Something in the tree that is neither a regular file nor a directory, or a file or directory
 * whose name is not valid UTF-8 (`encoding`: its path shows U+FFFD where the bytes were; it is
 * not read, nor entered).
 */
export interface TreeOddity {
  path: string;
  kind: 'symlink' | 'special' | 'encoding';
}

export interface Tree {
  files: TreeFile[];
  oddities: TreeOddity[];
}

export interface WalkOptions {
  /** relative paths (or path prefixes) to skip, e.g. `.git` */
  ignore?: (relPath: string, isDir: boolean) => boolean;
}

/** Directories that never belong to SKIT content. */
export const DEFAULT_IGNORED = new Set(['.git', 'node_modules', '.DS_Store']);

export const defaultIgnore = (relPath: string): boolean => {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  return DEFAULT_IGNORED.has(base);
};

/**
 * Lists every regular file below `root`, sorted by path (code-unit order), with its mode class.
 * Symlinks and special files are not followed; they are reported as oddities so callers can
 * refuse them with a diagnostic.
 */
export async function walkTree(root: string, options: WalkOptions = {}): Promise<Tree> {
  const ignore = options.ignore ?? defaultIgnore;
  const files: TreeFile[] = [];
  const oddities: TreeOddity[] = [];
  async function visit(dirAbs: string, dirRel: string): Promise<void> {
    const entries = await fsp.readdir(dirAbs, { withFileTypes: true });
    await Promise.all(
      entries.map(async (entry) => {
        const rel = dirRel ? `${dirRel}/${entry.name}` : entry.name;
        const abs = join(dirAbs, entry.name);
        if (mayBeMisdecoded(entry.name) && (await fsp.lstat(abs).then(() => false, () => true))) return void oddities.push({ path: rel, kind: 'encoding' });
        if (entry.isDirectory()) {
          if (!ignore(rel, true)) await visit(abs, rel);
          return;
        }
        if (ignore(rel, false)) return;
        if (entry.isSymbolicLink()) return void oddities.push({ path: rel, kind: 'symlink' });
        if (!entry.isFile()) return void oddities.push({ path: rel, kind: 'special' });
        const st = await fsp.lstat(abs);
        files.push({ path: rel, mode: st.mode & 0o111 ? 'exec' : 'file', size: st.size, abs });
      }),
    );
  }
  await visit(root, '');
  files.sort((a, b) => compareCodeUnits(a.path, b.path));
  oddities.sort((a, b) => compareCodeUnits(a.path, b.path));
  return { files, oddities };
}

/**
 * True when a name from readdir may not be the name on disk: readdir decodes names as UTF-8 and
 * puts U+FFFD where the bytes are not UTF-8 (a Latin-1 `café`), and that name then names nothing.
 * The caller checks with lstat; a name that really holds U+FFFD is found.
 */
export function mayBeMisdecoded(name: string): boolean {
  return name.includes('\ufffd');
}

/** Plain code-unit comparison: locale-independent, identical on every machine. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
