import { SfError } from '../errors/index.js';
import { compareUtf8, normalizeHashPath } from './hash-listing.js';
import type { ModeClass } from './tree.js';
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

/**
 * Lists the files of `skill`: every file below `skill.path` (all files when the path is '', the
 * single-skill case), relative to the skill directory, plus each file under a shared mapping's
 * `from` (a file or a directory) at `to/<rest>`. Sorted by UTF-8 bytes of the path.
 *
 * Throws SF_E_NOT_FOUND when a mapping source matches no file, SF_E_PATH_COLLISION when a mapped
 * file lands on an own file, on another mapped file, or on a directory (or below a file).
 */
export function skillFileEntries(layout: SkitLayout, skill: SkillEntry, fileHashes: ReadonlyMap<string, FileDigest>): SkillFile[] {
  const files = normalizedFiles(layout);
  const digestOf = (path: string): FileDigest => {
    const d = fileHashes.get(path);
    if (!d) throw new SfError('SF_E_INTERNAL', `no digest was computed for ${path}`);
    return d;
  };
  const out = new Map<string, SkillFile>();
  const add = (entry: SkillFile, mappingIndex?: number) => {
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
  for (const { nfc, file } of files) {
    if (!nfc.startsWith(ownPrefix)) continue;
    add({ path: nfc.slice(ownPrefix.length), mode: file.mode, ...digestOf(file.path) });
  }

  skill.shared.forEach((mapping, i) => {
    const from = normalizeHashPath(stripSlash(mapping.from));
    const to = normalizeHashPath(stripSlash(mapping.to));
    const below = `${from}/`;
    let matched = 0;
    for (const { nfc, file } of files) {
      const rest = nfc === from ? '' : nfc.startsWith(below) ? nfc.slice(below.length) : null;
      if (rest === null) continue;
      matched++;
      add({ path: rest === '' ? to : `${to}/${rest}`, mode: file.mode, ...digestOf(file.path), from: nfc }, i);
    }
    if (matched === 0) {
      throw new SfError('SF_E_NOT_FOUND', `shared mapping ${i} of skill "${skill.name}": "${mapping.from}" matches no file of the SKIT`, {
        location: { file: 'README.md', pointer: `skills[${skill.name}].shared[${i}].from` },
        hint: 'point `from` at an existing file or directory (SKIT-relative), or remove the mapping',
      });
    }
  });

  assertNoFileDirectoryClash(skill, out);
  return [...out.values()].sort((a, b) => compareUtf8(a.path, b.path));
}

// Each skill scans the whole SKIT; normalize the paths once per layout, not once per skill.
const normalizedCache = new WeakMap<SkitLayout['files'], { nfc: string; file: SkitLayout['files'][number] }[]>();
function normalizedFiles(layout: SkitLayout) {
  let files = normalizedCache.get(layout.files);
  if (!files) {
    files = layout.files.map((f) => ({ nfc: f.path.normalize('NFC'), file: f }));
    normalizedCache.set(layout.files, files);
  }
  return files;
}

/** A path cannot be both a file and a directory in a projection: `references` vs `references/x.md`. */
function assertNoFileDirectoryClash(skill: SkillEntry, files: ReadonlyMap<string, SkillFile>): void {
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
