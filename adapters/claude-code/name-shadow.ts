import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import type { HostContext, ProjectedSkill, ProjectionRecord, ProjectionRequest } from '../../core/install/host-adapter.js';
import { bundleHex, sfPaths } from '../../core/library/paths.js';
import { isInsideDir } from '../shared/fs-ops.js';
import { sameTree } from '../shared/same-tree.js';
import { lookUpSkills, memoSkillIndex, namesGoneBy, type FoundSkill } from '../shared/skill-names.js';
import { claudeConfigDir } from './settings.js';

/**
 * The project skill roots Claude Code run in `cwd` reads: `.claude/skills` in `cwd` and in each
 * parent up to the repository root (the first holding `.git`); the home directory is where the
 * user's own root is, so the walk stops below it.
 */
export function claudeRootsAround(cwd: string, home: string): string[] {
  const out: string[] = [];
  const homeDir = resolve(home);
  for (let dir = resolve(cwd); dir !== homeDir; dir = dirname(dir)) {
    out.push(join(dir, '.claude', 'skills'));
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) break;
  }
  return out;
}

/**
 * Every skill root where Claude Code finds skills that Forge's skillOverrides for this context
 * also reach: Forge's own root, the user's, and the project's around the current directory. A
 * user-scope setting holds in every project, so at user scope that is the project the command
 * runs in; a project's settings hold only inside it.
 */
function rootsReached(ctx: HostContext, ownRoot: string): string[] {
  const userRoot = join(claudeConfigDir(ctx), 'skills');
  const cwd = ctx.cwd;
  const inScope = cwd !== undefined && (ctx.scope === 'user' || (ctx.projectRoot !== undefined && isInsideDir(resolve(cwd), resolve(ctx.projectRoot))));
  const roots = [ownRoot, userRoot, ...(inScope ? claudeRootsAround(cwd, ctx.home) : [])];
  return roots.filter((r, i) => roots.indexOf(r) === i);
}

/** True when `found` is this release's skill `s` in another place: a link into the same store entry, or a copy of it. */
async function isSameRelease(found: FoundSkill, s: ProjectedSkill, bundleDir: string): Promise<boolean> {
  if (found.storeLink !== undefined) return isInsideDir(found.storeLink, bundleDir);
  return sameTree(found.dir, s.sourceDir);
}

/** The skills of a root Claude Code reads, by both names each goes by (once per pass: HostContext.memo). */
const claudeSkillIndex = (root: string, store: string, ctx: HostContext) => memoSkillIndex(root, 1, store, false, 'claude', namesGoneBy, ctx.memo);

/**
 * skillOverrides are keyed by name, so a same-named skill that is not this installation's, in a
 * root Claude Code also reads, is switched off together with Forge's disabled one (and may shadow
 * an enabled one): worth a warning. Claude Code knows a skill by its directory under the root;
 * a SKILL.md `name` may say otherwise, so both count.
 */
export async function claudeNameShadows(req: ProjectionRequest, record: ProjectionRecord, ctx: HostContext): Promise<Diagnostic[]> {
  if (req.skills.length === 0) return [];
  const store = sfPaths(ctx.env).store;
  const bundleDir = join(store, bundleHex(req.bundleHash));
  const userRoot = join(claudeConfigDir(ctx), 'skills');
  const own = new Set([...record.paths.map((p) => p.path), ...req.skills.map((s) => join(record.skillRoot, s.name))]);
  const out: Diagnostic[] = [];
  for (const root of rootsReached(ctx, record.skillRoot)) {
    // only the skills going by one of this release's names: not every skill of the root
    for (const found of lookUpSkills(await claudeSkillIndex(root, store, ctx), req.skills.map((s) => s.name))) {
      if (own.has(found.dir)) continue;
      const names = namesGoneBy(found);
      for (const s of req.skills.filter((k) => names.includes(k.name))) {
        if (await isSameRelease(found, s, bundleDir)) continue;
        const whose = found.storeLink !== undefined ? `, installed by Forge in the ${root === userRoot ? 'user' : 'project'} scope` : ' that Forge does not manage';
        const where = root === userRoot || root === record.skillRoot ? '' : `, when it runs in ${ctx.cwd},`;
        out.push({ code: 'SF_ADAPTER_NAME_SHADOW', severity: 'warning', file: found.dir,
          message: `Claude Code${where} also sees a skill named "${s.name}" at ${found.dir}${whose}; skillOverrides apply by name to both, so turning one off turns off the other`,
          hint: `Rename one of them if they are different skills (Forge's is ${s.skillId} in ${record.skillRoot}).` });
      }
    }
  }
  return out;
}
