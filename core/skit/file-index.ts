import { compareCodeUnits, type ModeClass } from './tree.js';

// eslint-disable-next-line no-control-regex
const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s);

/** One file of a SKIT listing as validation sees it (a TreeFile without needing a disk path). */
export interface LayoutFile {
  path: string;
  mode: ModeClass;
  size: number;
  abs?: string;
}

/**
 * A sorted file listing with fast lookups: exact path, and every file below a directory (a
 * contiguous range of the sorted list, found by binary search), so rules never re-walk the tree.
 */
export class FileIndex {
  readonly files: readonly LayoutFile[];
  private readonly byPath = new Map<string, LayoutFile>();
  /** NFC spelling -> the tree's own spelling, for every non-ASCII file path and its directories */
  private readonly spellings = new Map<string, string>();

  constructor(files: readonly LayoutFile[]) {
    this.files = [...files].sort((a, b) => compareCodeUnits(a.path, b.path));
    for (const f of this.files) {
      this.byPath.set(f.path, f);
      if (isAscii(f.path)) continue;
      for (const p of [...ancestors(f.path), f.path]) if (!isAscii(p)) this.spellings.set(p.normalize('NFC'), p);
    }
  }

  /**
   * `path` as the tree spells it: a descriptor written in NFC names a directory a macOS tree holds
   * in NFD, and an NFD descriptor names what an archive (packed in NFC) holds in NFC. Paths that
   * match exactly, or match nothing, come back as they are.
   */
  spelling(path: string): string {
    if (isAscii(path) || this.byPath.has(path) || this.isDirectory(path)) return path;
    return this.spellings.get(path.normalize('NFC')) ?? path;
  }

  get(path: string): LayoutFile | undefined {
    return this.byPath.get(path);
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  /** Files strictly below directory `dir` ('' = every file). */
  under(dir: string): LayoutFile[] {
    if (dir === '') return [...this.files];
    const prefix = `${dir}/`;
    const out: LayoutFile[] = [];
    for (let i = this.lowerBound(prefix); i < this.files.length && this.files[i].path.startsWith(prefix); i++) out.push(this.files[i]);
    return out;
  }

  /** True when `dir` names a directory that holds at least one file. */
  isDirectory(dir: string): boolean {
    if (dir === '') return this.files.length > 0;
    const prefix = `${dir}/`;
    const i = this.lowerBound(prefix);
    return i < this.files.length && this.files[i].path.startsWith(prefix);
  }

  /** The file itself when `path` is a file, otherwise every file below it. */
  fileOrTree(path: string): LayoutFile[] {
    const file = this.byPath.get(path);
    return file ? [file] : this.under(path);
  }

  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.files.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.files[mid].path < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Every proper ancestor directory of a relative path: `a/b/c` -> `a`, `a/b`. */
export function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

/**
 * The ancestors of `path` not in `seen`, deepest first, for callers that record every ancestor of
 * each path they see: the deepest one already seen means all above it were, so a tree's
 * directories are each visited once instead of once per file below them.
 */
export function unseenAncestors(path: string, seen: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) {
    const dir = path.slice(0, cut);
    if (seen.has(dir)) break;
    out.push(dir);
  }
  return out;
}
