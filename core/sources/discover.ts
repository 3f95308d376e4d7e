import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { hasErrno, type Diagnostic } from '../errors/index.js';
import { MAX_FRONTMATTER_BYTES } from '../skit/frontmatter.js';
import { RULES } from '../skit/rules.js';
import { compareCodeUnits } from '../skit/tree.js';
import { isSkitReadme, skillFrontmatterProblem, skillNameOf } from './frontmatter.js';

/**
 * Agent Skills discovery for trees without SKIT README frontmatter (spec "Source compatibility
 * contract"). Guaranteed locations, in this order:
 *
 *   SKILL.md at the root (then the root is the one skill and nothing else is searched),
 *   skills/<name>, skills/<category>/<name>, .agents/skills/<name>, .claude/skills/<name>,
 *   .opencode/skills/<name>.
 *
 * A directory counts when it holds a regular file named SKILL.md; symlinked directories and dot
 * directories are not followed. Recursive discovery elsewhere is best-effort and not done here.
 */

export const DISCOVERY_LOCATIONS = ['skills', '.agents/skills', '.claude/skills', '.opencode/skills'] as const;

export interface DiscoveredSkill {
  name: string;
  /** SKIT-relative directory; '' for a root SKILL.md */
  path: string;
}

export type Layout =
  | { kind: 'skit' }
  | { kind: 'skills'; skills: DiscoveredSkill[]; diagnostics: Diagnostic[] }
  | { kind: 'empty' };

/**
 * Frontmatter is at the top: discovery never reads more of a file than this, the frontmatter limit
 * plus one byte, so a closing line that ends past the limit is seen to, as validation sees it
 * (core/skit/frontmatter.ts: one limit, one finding).
 */
const MAX_READ = MAX_FRONTMATTER_BYTES + 1;

/** A name that is there but is no regular file: discovery does not read it, validation refuses it. */
interface OddFile {
  odd: 'symlink' | 'special';
}

/**
 * The start of a file; undefined when it does not exist (or is a directory), an OddFile when it
 * is a symbolic link, FIFO, socket or device. A symbolic link is not followed (O_NOFOLLOW): a
 * fetched tree must not make discovery read /dev/zero or a file outside it. FIFOs are opened
 * without blocking and then refused by fstat.
 */
function readFileAt(abs: string): string | OddFile | undefined {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (['ENOENT', 'EISDIR', 'ENOTDIR'].some((code) => hasErrno(err, code))) return undefined;
    // O_NOFOLLOW on a symbolic link fails with ELOOP; opening a socket with ENXIO
    if (hasErrno(err, 'ELOOP')) return { odd: 'symlink' };
    if (hasErrno(err, 'ENXIO')) return { odd: 'special' };
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) return undefined;
    if (!st.isFile()) return { odd: 'special' };
    const buf = Buffer.alloc(Math.min(st.size, MAX_READ));
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The error naming what `file` really is, as validation names it (SKIT_TREE_SYMLINK / SKIT_TREE_SPECIAL_FILE). */
function oddDiagnostic(file: string, odd: OddFile): Diagnostic {
  const [code, what] = odd.odd === 'symlink'
    ? (['SKIT_TREE_SYMLINK', 'a symbolic link: symbolic links are not allowed in a SKIT'] as const)
    : (['SKIT_TREE_SPECIAL_FILE', 'not a regular file (a FIFO, socket or device): only regular files and directories are allowed in a SKIT'] as const);
  return { code, severity: 'error', message: `${file} is ${what}`, file, hint: RULES[code].hint, errorCode: 'SF_E_VALIDATION' };
}

/** Real subdirectories of `root`/`rel` (no symlinks, no dot names), sorted; nothing when any part of `rel` is a link. */
function subdirs(root: string, rel: string): string[] {
  const abs = join(root, rel);
  try {
    for (let i = 1, parts = rel.split('/'); i <= parts.length; i++) if (lstatSync(join(root, ...parts.slice(0, i))).isSymbolicLink()) return [];
    const entries = readdirSync(abs, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort(compareCodeUnits);
  } catch (err) {
    if (hasErrno(err, 'ENOENT') || hasErrno(err, 'ENOTDIR')) return [];
    throw err;
  }
}

/**
 * Relative directories below the guaranteed locations that hold a SKILL.md, with its text (or
 * what it is instead of a regular file).
 */
function findSkillDirs(root: string): { path: string; text: string | OddFile }[] {
  const found: { path: string; text: string | OddFile }[] = [];
  for (const location of DISCOVERY_LOCATIONS) {
    for (const name of subdirs(root, location)) {
      const rel = `${location}/${name}`;
      const text = readFileAt(join(root, rel, 'SKILL.md'));
      if (text !== undefined) {
        found.push({ path: rel, text });
        continue;
      }
      // skills/<category>/<name> only; the agent directories are one level deep
      if (location !== 'skills') continue;
      for (const child of subdirs(root, rel)) {
        const childRel = `${rel}/${child}`;
        const childText = readFileAt(join(root, childRel, 'SKILL.md'));
        if (childText !== undefined) found.push({ path: childRel, text: childText });
      }
    }
  }
  return found;
}

function named(path: string, text: string | OddFile, diagnostics: Diagnostic[]): DiscoveredSkill | undefined {
  const file = path ? `${path}/SKILL.md` : 'SKILL.md';
  if (typeof text !== 'string') {
    diagnostics.push(oddDiagnostic(file, text));
    return undefined;
  }
  const name = skillNameOf(text);
  if (name === undefined) {
    const problem = skillFrontmatterProblem(text);
    // over the frontmatter limit: the finding validation gives, not "no readable frontmatter"
    if (problem?.kind === 'too-large') {
      diagnostics.push({ code: 'SKILL_FRONTMATTER_TOO_LARGE', severity: 'error', message: problem.message, file, hint: RULES.SKILL_FRONTMATTER_TOO_LARGE.hint, errorCode: 'SF_E_FRONTMATTER' });
      return undefined;
    }
    diagnostics.push({
      code: 'SOURCE_SKILL_NAME_MISSING',
      severity: 'error',
      message: problem ? `${file} has no readable frontmatter, so the skill cannot be identified: ${problem.message} (line ${problem.line})` : `${file} has no frontmatter "name", so the skill cannot be identified`,
      file,
      hint: 'start SKILL.md with a "---" YAML block that sets name: and description:',
      errorCode: 'SF_E_VALIDATION',
    });
    return undefined;
  }
  return { name, path };
}

/**
 * Decides how a tree is laid out: a SKIT (root README.md with `skit` frontmatter), a set of Agent
 * Skills found in the guaranteed locations, or nothing recognizable. Duplicate skill names and
 * nameless SKILL.md files become error diagnostics; the caller decides whether to throw.
 * Synchronous: it reads a README.md, or a few directory listings and SKILL.md files, and a
 * thread-pool round trip per call cost an install more than the reads themselves.
 */
export function discoverLayout(root: string): Layout {
  const readme = readFileAt(join(root, 'README.md'));
  if (typeof readme === 'string' && isSkitReadme(readme)) return { kind: 'skit' };
  // validation would refuse the tree for it anyway: say so rather than "no SKIT found"
  if (readme !== undefined && typeof readme !== 'string') return { kind: 'skills', skills: [], diagnostics: [oddDiagnostic('README.md', readme)] };

  const diagnostics: Diagnostic[] = [];
  const nested = findSkillDirs(root);
  const rootSkill = readFileAt(join(root, 'SKILL.md'));
  if (rootSkill !== undefined) {
    if (nested.length > 0) {
      diagnostics.push({
        code: 'SOURCE_ROOT_SKILL_SHADOWS',
        severity: 'warning',
        message: `SKILL.md at the root makes the whole tree one skill; ${nested.length} skill(s) below it (${nested[0].path}, ...) are not installed separately`,
        file: 'SKILL.md',
        hint: 'remove the root SKILL.md, or add a README.md with SKIT frontmatter listing the skills',
      });
    }
    const skill = named('', rootSkill, diagnostics);
    return { kind: 'skills', skills: skill ? [skill] : [], diagnostics };
  }
  if (nested.length === 0) return { kind: 'empty' };

  const skills: DiscoveredSkill[] = [];
  const byName = new Map<string, string>();
  for (const { path, text } of nested) {
    const skill = named(path, text, diagnostics);
    if (!skill) continue;
    const prior = byName.get(skill.name);
    if (prior !== undefined) {
      diagnostics.push({
        code: 'SKIT_SKILL_NAME_DUPLICATE',
        severity: 'error',
        message: `skill name "${skill.name}" is used twice: ${prior}/SKILL.md and ${path}/SKILL.md`,
        file: `${path}/SKILL.md`,
        hint: 'rename one of the skills, or add a README.md with SKIT frontmatter that lists the one to install',
        errorCode: 'SF_E_VALIDATION',
      });
      continue;
    }
    byName.set(skill.name, path);
    skills.push(skill);
  }
  return { kind: 'skills', skills, diagnostics };
}
