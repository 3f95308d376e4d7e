import type { Diagnostic } from '../errors/diagnostic.js';
import type { DescriptorSkill } from './descriptor.js';
import type { Locate } from './descriptor-source.js';
import { ancestors, type FileIndex } from './file-index.js';
import { diagnostic } from './rules.js';
import { checkRelativePath, collisionKey, PATH_PROBLEM_TEXT } from './safe-path.js';
import { checkSkillLinks } from './skill-links.js';
import { validateSkillMd } from './skill-md.js';

/**
 * Rules on the contained skills of a descriptor: unique names and directories, each skill owns a
 * directory that no other skill nests in, the directory holds a valid SKILL.md whose name equals
 * the entry name and the directory name, and no SKILL.md lies outside the declared skills. Pure.
 */

export interface SkillCheck {
  diagnostics: Diagnostic[];
  /** entries whose path is safe and unique: the skills of the layout */
  accepted: DescriptorSkill[];
  /** SKILL.md files that declare hooks in their frontmatter */
  frontmatterHookFiles: string[];
  /** the SKILL.md frontmatter of each accepted skill, by skill name */
  frontmatters: Map<string, Record<string, unknown>>;
}

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const trimSlash = (p: string) => (p.endsWith('/') ? p.slice(0, -1) : p);

export function checkSkills(skills: readonly DescriptorSkill[], index: FileIndex, readText: (path: string) => string | undefined, locate: Locate): SkillCheck {
  const result: SkillCheck = { diagnostics: [], accepted: [], frontmatterHookFiles: [], frontmatters: new Map() };
  const out = result.diagnostics;
  const names = new Map<string, number>();
  const paths = new Map<string, DescriptorSkill>();
  for (const s of skills) {
    const at = (key: string) => locate(`/skills/${s.index}/${key}`);
    const prior = names.get(s.name);
    if (prior !== undefined) out.push(diagnostic('SKIT_SKILL_NAME_DUPLICATE', `skill name "${s.name}" is already used by skills[${prior}]`, at('name')));
    else names.set(s.name, s.index);
    const problem = checkRelativePath(s.path);
    if (problem) {
      out.push(diagnostic('SKIT_SKILL_PATH_UNSAFE', `skills[${s.index}].path "${s.path}": ${PATH_PROBLEM_TEXT[problem]}`, at('path')));
      continue;
    }
    const path = trimSlash(s.path);
    const key = collisionKey(path);
    const same = paths.get(key);
    if (same) {
      out.push(diagnostic('SKIT_SKILL_PATH_DUPLICATE', `skills[${s.index}] and skills[${same.index}] use the same directory "${path}"`, at('path')));
      continue;
    }
    const entry = { ...s, path };
    paths.set(key, entry);
    result.accepted.push(entry);
  }

  const ownerKeys = new Set(paths.keys());
  const skillDirs = new Set(result.accepted.map((s) => s.path));
  for (const s of result.accepted) {
    const at = (key: string) => locate(`/skills/${s.index}/${key}`);
    const outer = ancestors(s.path).find((a) => ownerKeys.has(collisionKey(a)));
    if (outer !== undefined) {
      out.push(diagnostic('SKIT_SKILL_PATH_NESTED', `skill "${s.name}" at ${s.path} lies inside the directory of the skill at ${paths.get(collisionKey(outer))?.path}`, at('path')));
    }
    if (base(s.path) !== s.name) {
      out.push(diagnostic('SKIT_SKILL_DIR_MISMATCH', `skill "${s.name}" lives in a directory named "${base(s.path)}"`, at('path')));
    }
    if (s.missingDeclarations.length > 0) {
      out.push(diagnostic('SKIT_SKILL_DECLARATIONS_INCOMPLETE', `skill "${s.name}" does not declare ${s.missingDeclarations.join(', ')}`, locate(`/skills/${s.index}`)));
    }
    if (!index.isDirectory(s.path)) {
      const what = index.has(s.path) ? 'is a file, not a directory' : 'does not exist (or holds no files)';
      out.push(diagnostic('SKIT_SKILL_PATH_MISSING', `skill "${s.name}": ${s.path} ${what}`, at('path')));
      continue;
    }
    checkSkillFile(s, index, readText, skillDirs, result);
  }

  for (const f of index.files) {
    const b = base(f.path);
    if (b !== 'SKILL.md' && b !== 'skill.md') continue;
    if (f.path === b) out.push(diagnostic('SKIT_ROOT_SKILL_IGNORED', 'a SKIT with a README.md descriptor ignores a SKILL.md at its root', { file: f.path }));
    else if (!ancestors(f.path).some((a) => skillDirs.has(a))) {
      out.push(diagnostic('SKIT_SKILL_UNDECLARED', `${f.path} is not inside any skill listed in README.md`, { file: f.path }));
    }
  }
  return result;
}

function checkSkillFile(s: DescriptorSkill, index: FileIndex, readText: (p: string) => string | undefined, skillDirs: ReadonlySet<string>, result: SkillCheck): void {
  const out = result.diagnostics;
  const upper = `${s.path}/SKILL.md`;
  const file = index.has(upper) ? upper : index.has(`${s.path}/skill.md`) ? `${s.path}/skill.md` : undefined;
  if (!file) return void out.push(diagnostic('SKILL_MD_MISSING', `skill "${s.name}" has no SKILL.md`, { file: upper }));
  if (file !== upper) out.push(diagnostic('SKILL_MD_LOWERCASE', 'the instructions file is named skill.md', { file }));
  const md = validateSkillMd(readText(file) ?? '', { file, dirName: base(s.path) });
  out.push(...md.diagnostics);
  if (md.frontmatter) result.frontmatters.set(s.name, md.frontmatter);
  if (md.frontmatter && 'hooks' in md.frontmatter) result.frontmatterHookFiles.push(file);
  // exactly as written: hosts load the name as it stands, so "ｒｅｖｉｅｗ" or "review " is another skill
  const written = typeof md.frontmatter?.name === 'string' ? md.frontmatter.name : md.name;
  if (written !== undefined && written !== s.name) {
    const where = md.parsed ? md.parsed.positions.locate('/name') : {};
    out.push(diagnostic('SKIT_SKILL_NAME_MISMATCH', `SKILL.md names the skill ${JSON.stringify(written)} but README.md lists it as ${JSON.stringify(s.name)}`, { file, ...where }));
  }
  if (md.parsed) out.push(...checkSkillLinks(md.parsed.body, md.parsed.bodyLine, s.path, file, skillDirs));
}
