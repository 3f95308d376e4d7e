import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { hasErrno } from '../../core/errors/index.js';
import { isInsideDir } from './fs-ops.js';
import { pathState } from './project.js';

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
}

export interface SkillsBelowOptions {
  /** how many directory levels below the root a SKILL.md is looked for (1: `<root>/<skill>/SKILL.md` only) */
  maxDepth: number;
  /** directories not to read at all (Forge's own projections) */
  skip?: (dir: string) => Promise<boolean>;
}

/** Every skill directory below `root` (one holding a SKILL.md), hidden and node_modules directories aside. */
export async function skillsBelow(root: string, options: SkillsBelowOptions, depth = 0): Promise<FoundSkill[]> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EACCES')) return [];
    throw e;
  }
  const out: FoundSkill[] = [];
  if (depth > 0 && entries.some((e) => e.name === 'SKILL.md' && !e.isDirectory())) {
    const name = frontmatterName(await readFile(join(root, 'SKILL.md'), 'utf8').catch(() => ''));
    out.push({ dir: root, ...(name === undefined ? {} : { name }) });
  }
  if (depth >= options.maxDepth) return out;
  for (const e of entries) {
    if (!(e.isDirectory() || e.isSymbolicLink()) || e.name.startsWith('.') || e.name === 'node_modules') continue;
    const dir = join(root, e.name);
    if (await options.skip?.(dir)) continue;
    out.push(...(await skillsBelow(dir, options, depth + 1)));
  }
  return out;
}

/**
 * Every skill directory below `root` (skillsBelow), read once per `memo` (HostContext.memo) rather
 * than once per installation that asks; links into `store` are not descended into when
 * `skipStoreLinks`. Callers leave out their own directories from the result.
 */
export function memoSkillsBelow(root: string, maxDepth: number, store: string, skipStoreLinks: boolean, memo?: Map<string, Promise<unknown>>): Promise<FoundSkill[]> {
  const scan = () => skillsBelow(root, { maxDepth, ...(skipStoreLinks ? { skip: async (dir: string) => (await storeLinkTarget(dir, store)) !== undefined } : {}) });
  if (!memo) return scan();
  const key = `skills-below\u0000${maxDepth}\u0000${skipStoreLinks ? store : ''}\u0000${root}`;
  let found = memo.get(key) as Promise<FoundSkill[]> | undefined;
  if (!found) memo.set(key, (found = scan()));
  return found;
}

/** storeLinkTarget, once per `memo` and directory. */
export function memoStoreLinkTarget(dir: string, store: string, memo?: Map<string, Promise<unknown>>): Promise<string | undefined> {
  if (!memo) return storeLinkTarget(dir, store);
  const key = `store-link\u0000${store}\u0000${dir}`;
  let target = memo.get(key) as Promise<string | undefined> | undefined;
  if (!target) memo.set(key, (target = storeLinkTarget(dir, store)));
  return target;
}

/** The name a host that prefers the frontmatter name gives the skill (OpenCode). */
export const skillName = (found: FoundSkill): string => found.name ?? basename(found.dir);

/** True when either name the skill goes by, its frontmatter name or its directory name, is `name`. */
export const goesBy = (found: FoundSkill, name: string): boolean => found.name === name || basename(found.dir) === name;

/** Where `dir` links to when it is a link into Forge's store (so a projection of Forge's), else undefined. */
export async function storeLinkTarget(dir: string, store: string): Promise<string | undefined> {
  const st = await pathState(dir);
  if (st.kind !== 'symlink') return undefined;
  const target = isAbsolute(st.target) ? st.target : resolve(dirname(dir), st.target);
  return isInsideDir(target, store) ? target : undefined;
}
