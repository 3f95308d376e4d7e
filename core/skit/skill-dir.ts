import { readFile, readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { diagnostic } from './rules.js';
import { validateSkillMd, type SkillMdResult } from './skill-md.js';

/** File names a skill directory may use for its instructions, in order of preference. */
export const SKILL_FILE_NAMES = ['SKILL.md', 'skill.md'] as const;

/** The instructions file among a directory's entry names, or undefined. */
export function pickSkillFile(entryNames: Iterable<string>): (typeof SKILL_FILE_NAMES)[number] | undefined {
  const names = new Set(entryNames);
  return SKILL_FILE_NAMES.find((n) => names.has(n));
}

/**
 * Validates one Agent Skills directory on disk, the unit skills-ref validates: finds SKILL.md
 * (or skill.md, with a warning), and checks it with the directory's own name.
 */
export async function validateSkillDir(dir: string): Promise<SkillMdResult & { file?: string }> {
  const abs = resolve(dir);
  let entries: string[];
  try {
    entries = await readdir(abs);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) {
      return { diagnostics: [diagnostic('SKILL_MD_MISSING', `${abs} is not a directory`, {}, { hint: 'pass the skill directory that contains SKILL.md' })] };
    }
    throw e;
  }
  const file = pickSkillFile(entries);
  if (!file) return { diagnostics: [diagnostic('SKILL_MD_MISSING', `no SKILL.md in ${basename(abs)}`)] };
  const text = await readFile(join(abs, file), 'utf8');
  const result = validateSkillMd(text, { file, dirName: basename(abs) });
  if (file === 'skill.md') result.diagnostics.unshift(diagnostic('SKILL_MD_LOWERCASE', 'the instructions file is named skill.md', { file }));
  return { ...result, file };
}
