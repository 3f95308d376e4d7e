import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { hasErrno } from '../../core/errors/index.js';
import { isInsideDir } from './fs-ops.js';
import { memoized } from './memo.js';

/**
 * Finding skills by the name a host gives them, for hosts whose on/off switch goes by name
 * (Claude Code's skillOverrides, OpenCode's permission.skill): a skill of the user's with one of
 * Forge's names is reached by that switch too.
 */

/** The `name` of a SKILL.md's frontmatter, if any. */
export function frontmatterName(text: string): string | undefined {
  const fm = /^(?:\uFEFF)?---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  const raw = fm && /^name:[ \t]*(.*?)[ \t]*$/m.exec(fm)?.[1];
  if (!raw) return undefined;
  return raw.replace(/^(["'])(.*)\1$/, '$2');
}

export interface FoundSkill {
  /** the skill directory (it holds a SKILL.md) */
  dir: string;
  /** its SKILL.md frontmatter name, when it has one */
  name?: string;
  /** where `dir` links to, when it is itself a link into Forge's store (a projection of Forge's) */
  storeLink?: string;
}

export interface SkillsBelowOptions {
  /** how many directory levels below the root a SKILL.md is looked for (1: `<root>/<skill>/SKILL.md` only) */
  maxDepth: number;
  /** $SF_HOME/store: links into it are Forge's (FoundSkill.storeLink) */
  store: string;
  /** links into the store (Forge's own projections) are not read at all */
  skipStoreLinks?: boolean;
}

/**
 * Every skill directory below `root` (one holding a SKILL.md), hidden and node_modules directories
 * aside. readdir says which entries are links, so only those cost a readlink. Synchronous, like
 * pathState: a library's roots hold thousands of entries, read on every install and toggle, and
 * through the thread pool each read cost a round trip many times the kernel's work.
 */
export async function skillsBelow(root: string, options: SkillsBelowOptions): Promise<FoundSkill[]> {
  return skillsBelowSync(root, options, 0, undefined);
}

function skillsBelowSync(root: string, options: SkillsBelowOptions, depth: number, storeLink: string | undefined): FoundSkill[] {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EACCES')) return [];
    throw e;
  }
  const out: FoundSkill[] = [];
  if (depth > 0 && entries.some((e) => e.name === 'SKILL.md' && !e.isDirectory())) {
    const name = frontmatterName(readText(join(root, 'SKILL.md')));
    out.push({ dir: root, ...(name === undefined ? {} : { name }), ...(storeLink === undefined ? {} : { storeLink }) });
  }
  if (depth >= options.maxDepth) return out;
  for (const e of entries) {
    if (!(e.isDirectory() || e.isSymbolicLink()) || e.name.startsWith('.') || e.name === 'node_modules') continue;
    const dir = join(root, e.name);
    const link = e.isSymbolicLink() ? storeLinkOf(dir, options.store) : undefined;
    if (link !== undefined && options.skipStoreLinks) continue;
    out.push(...skillsBelowSync(dir, options, depth + 1, link));
  }
  return out;
}

/** A SKILL.md's text; '' when it cannot be read (the skill is still found, without a name). */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Where the link `dir` leads when that is inside `store`; undefined when it leads elsewhere or is gone. */
function storeLinkOf(dir: string, store: string): string | undefined {
  let target;
  try {
    target = readlinkSync(dir);
  } catch (e) {
    // replaced by something else since the readdir
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'EINVAL')) return undefined;
    throw e;
  }
  const abs = isAbsolute(target) ? target : resolve(dirname(dir), target);
  return isInsideDir(abs, store) ? abs : undefined;
}

/**
 * Every skill directory below `root` (skillsBelow), read once per `memo` (HostContext.memo) rather
 * than once per installation that asks; links into `store` are not descended into when
 * `skipStoreLinks`. Callers leave out their own directories from the result.
 */
export function memoSkillsBelow(root: string, maxDepth: number, store: string, skipStoreLinks: boolean, memo?: Map<string, Promise<unknown>>): Promise<FoundSkill[]> {
  const key = `skills-below\u0000${maxDepth}\u0000${skipStoreLinks}\u0000${store}\u0000${root}`;
  return memoized(key, () => skillsBelow(root, { maxDepth, store, skipStoreLinks }), memo);
}

/** A found skill and its place in the scan (results keep the scan's order). */
export interface IndexedSkill {
  found: FoundSkill;
  at: number;
}

/**
 * The skills below `root` (memoSkillsBelow) by each name in `namesOf(found)`, built once per
 * `memo`: an installation looks up its own skills' names instead of walking every skill of the
 * root (doctor over hundreds of SKITs would otherwise be quadratic). `kind` names `namesOf` in
 * the memo key.
 */
export function memoSkillIndex(root: string, maxDepth: number, store: string, skipStoreLinks: boolean, kind: string, namesOf: (found: FoundSkill) => string[], memo?: Map<string, Promise<unknown>>): Promise<Map<string, IndexedSkill[]>> {
  const key = `skill-index\u0000${kind}\u0000${maxDepth}\u0000${skipStoreLinks}\u0000${store}\u0000${root}`;
  return memoized(key, async () => {
    const index = new Map<string, IndexedSkill[]>();
    (await memoSkillsBelow(root, maxDepth, store, skipStoreLinks, memo)).forEach((found, at) => {
      for (const name of new Set(namesOf(found))) index.set(name, [...(index.get(name) ?? []), { found, at }]);
    });
    return index;
  }, memo);
}

/** The skills of `index` going by any of `names`, each once, in the order of the scan. */
export function lookUpSkills(index: Map<string, IndexedSkill[]>, names: Iterable<string>): FoundSkill[] {
  const hits = new Map<number, FoundSkill>();
  for (const name of names) for (const { found, at } of index.get(name) ?? []) hits.set(at, found);
  return [...hits.entries()].sort((a, b) => a[0] - b[0]).map(([, found]) => found);
}

/** The name a host that prefers the frontmatter name gives the skill (OpenCode). */
export const skillName = (found: FoundSkill): string => found.name ?? basename(found.dir);

/** Both names a skill goes by (Claude Code): its frontmatter name and its directory name. */
export const namesGoneBy = (found: FoundSkill): string[] => [...(found.name === undefined ? [] : [found.name]), basename(found.dir)];
