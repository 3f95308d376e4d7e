import { SfError } from '../errors/index.js';
import { normalizeHashPath, utf8OrderFor } from './hash-listing.js';
import { isAscii } from './safe-path.js';
import { compareCodeUnits, type ModeClass } from './tree.js';
import type { SkillEntry, SkitLayout } from './types.js';

/**
 * The files of one contained skill exactly as it is projected to an agent: its own directory plus
 * its `shared` mappings materialized. Pure; the content digests come from the caller.
 */

/** Digest of one SKIT file, keyed by its SKIT-relative path in `layout.files`. */
export interface FileDigest {
  sha256: string;
  size: number;
}

/** One file of a skill projection. */
export interface SkillFile {
  /** skill-relative, NFC, forward slashes */
  path: string;
  mode: ModeClass;
  sha256: string;
  size: number;
  /** SKIT-relative source path when the file comes from a shared mapping */
  from?: string;
}

/** One file of a skill projection before its digest is known: where in the SKIT its bytes come from. */
export interface SkillFileSource {
  /** skill-relative, NFC, forward slashes */
  path: string;
  mode: ModeClass;
  /** the SKIT-relative path of the file in `layout.files` (its digest's key) */
  source: string;
  /** the file's position in `layout.files` */
  index: number;
  /** SKIT-relative (NFC) source path when the file comes from a shared mapping */
  from?: string;
}

/**
 * Lists the files of `skill`: every file below `skill.path` (all files when the path is '', the
 * single-skill case), relative to the skill directory, plus each file under a shared mapping's
 * `from` (a file or a directory) at `to/<rest>`. Sorted by UTF-8 bytes of the path.
 *
 * Throws SF_E_NOT_FOUND when a mapping source matches no file, SF_E_PATH_COLLISION when a mapped
 * file lands on an own file, on another mapped file, or on a directory (or below a file).
 */
export function skillFileEntries(layout: SkitLayout, skill: SkillEntry, fileHashes: ReadonlyMap<string, FileDigest>): SkillFile[] {
  return skillFileSources(layout, skill).map((s) => withDigest(s, fileHashes.get(s.source)));
}

/** A projection entry with its digest, keys in the order of the `sf skit hash --json` output. */
export function withDigest(s: SkillFileSource, d: FileDigest | undefined): SkillFile {
  if (!d) throw new SfError('SF_E_INTERNAL', `no digest was computed for ${s.source}`);
  return s.from === undefined
    ? { path: s.path, mode: s.mode, sha256: d.sha256, size: d.size }
    : { path: s.path, mode: s.mode, sha256: d.sha256, size: d.size, from: s.from };
}

/**
 * skillFileEntries without the digests: the same files, order and errors, computed from the
 * layout alone (so hashing can plan the projections while the files are still being read).
 */
export function skillFileSources(layout: SkitLayout, skill: SkillEntry): SkillFileSource[] {
  const files = normalizedFiles(layout);
  const out = new Map<string, SkillFileSource>();
  const add = (entry: SkillFileSource, mappingIndex?: number) => {
    const prior = out.get(entry.path);
    if (prior) {
      const what = prior.from === undefined ? 'a file of the skill' : `the file mapped from ${prior.from}`;
      if (mappingIndex === undefined) {
        throw collision(skill, entry.path, `two files have the same normalized path "${entry.path}"`, 'names that differ only in Unicode normalization (NFC/NFD) name the same file; rename one of them');
      }
      throw collision(skill, entry.path, `shared mapping ${mappingIndex} (from ${entry.from}) would overwrite ${what} at "${entry.path}"`);
    }
    out.set(entry.path, entry);
  };

  const skillDir = skill.path === '' ? '' : normalizeHashPath(skill.path);
  const ownPrefix = skillDir === '' ? '' : `${skillDir}/`;
  for (const { nfc, file, position } of files.below(ownPrefix)) {
    add({ path: nfc.slice(ownPrefix.length), mode: file.mode, source: file.path, index: position });
  }

  skill.shared.forEach((mapping, i) => {
    const from = normalizeHashPath(stripSlash(mapping.from));
    const to = normalizeHashPath(stripSlash(mapping.to));
    const below = `${from}/`;
    let matched = 0;
    for (const { nfc, file, position } of files.fileOrBelow(from)) {
      const rest = nfc === from ? '' : nfc.slice(below.length);
      matched++;
      add({ path: rest === '' ? to : `${to}/${rest}`, mode: file.mode, source: file.path, index: position, from: nfc }, i);
    }
    if (matched === 0) {
      throw new SfError('SF_E_NOT_FOUND', `shared mapping ${i} of skill "${skill.name}": "${mapping.from}" matches no file of the SKIT`, {
        location: { file: 'README.md', pointer: `skills[${skill.name}].shared[${i}].from` },
        hint: 'point `from` at an existing file or directory (SKIT-relative), or remove the mapping',
      });
    }
  });

  assertNoFileDirectoryClash(skill, out);
  const order = utf8OrderFor(out.keys());
  return [...out.values()].sort((a, b) => order(a.path, b.path));
}

interface NormalizedFile {
  nfc: string;
  file: SkitLayout['files'][number];
  /** position in layout.files: matches are visited in this order, so the first error is always the same one */
  position: number;
}

/**
 * The layout's files under their NFC paths, with range lookups: each skill visits only its own
 * files and its mapped ones instead of scanning the whole SKIT once per skill and mapping.
 */
class NormalizedFiles {
  private readonly inLayoutOrder: NormalizedFile[];
  private readonly sorted: NormalizedFile[];

  constructor(files: SkitLayout['files']) {
    this.inLayoutOrder = files.map((file, position) => ({ nfc: isAscii(file.path) ? file.path : file.path.normalize('NFC'), file, position }));
    this.sorted = [...this.inLayoutOrder].sort((a, b) => compareCodeUnits(a.nfc, b.nfc));
  }

  /** Files whose NFC path starts with `prefix` ('' = all), in layout order. */
  below(prefix: string): NormalizedFile[] {
    if (prefix === '') return this.inLayoutOrder;
    return this.inOrder(this.startingWith(prefix, (nfc) => nfc.startsWith(prefix)));
  }

  /** Files whose NFC path is `path` or lies below it, in layout order. */
  fileOrBelow(path: string): NormalizedFile[] {
    const below = `${path}/`;
    // `path` and `path/...` need not be adjacent in sorted order (`a` < `a-b` < `a/c`)
    return this.inOrder([...this.startingWith(path, (nfc) => nfc === path), ...this.startingWith(below, (nfc) => nfc.startsWith(below))]);
  }

  /** The run of sorted entries from the first one >= `key` while `matches` holds. */
  private startingWith(key: string, matches: (nfc: string) => boolean): NormalizedFile[] {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.sorted[mid].nfc < key) lo = mid + 1;
      else hi = mid;
    }
    const out: NormalizedFile[] = [];
    for (let i = lo; i < this.sorted.length && matches(this.sorted[i].nfc); i++) out.push(this.sorted[i]);
    return out;
  }

  private inOrder(found: NormalizedFile[]): NormalizedFile[] {
    return found.sort((a, b) => a.position - b.position);
  }
}

// Normalized once per layout, not once per skill.
const normalizedCache = new WeakMap<SkitLayout['files'], NormalizedFiles>();
function normalizedFiles(layout: SkitLayout): NormalizedFiles {
  let files = normalizedCache.get(layout.files);
  if (!files) {
    files = new NormalizedFiles(layout.files);
    normalizedCache.set(layout.files, files);
  }
  return files;
}

/** A path cannot be both a file and a directory in a projection: `references` vs `references/x.md`. */
function assertNoFileDirectoryClash(skill: SkillEntry, files: ReadonlyMap<string, unknown>): void {
  for (const path of files.keys()) {
    for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
      const dir = path.slice(0, cut);
      if (files.has(dir)) throw collision(skill, dir, `"${dir}" is a file, but "${path}" needs it to be a directory`);
    }
  }
}

const MAPPING_HINT = "change the mapping's `to` so it lands on a free path inside the skill, or rename the skill's own file";

function collision(skill: SkillEntry, path: string, detail: string, hint = MAPPING_HINT): SfError {
  return new SfError('SF_E_PATH_COLLISION', `skill "${skill.name}": ${detail}`, {
    location: { file: skill.path === '' ? path : `${skill.path}/${path}`, pointer: `skills[${skill.name}].shared` },
    hint,
  });
}

const stripSlash = (p: string) => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p);
