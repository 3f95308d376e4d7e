import { join, resolve } from 'node:path';
import type { Diagnostic } from '../../core/errors/index.js';
import type { HostContext, ProjectionRequest } from '../../core/install/host-adapter.js';
import { sfPaths } from '../../core/library/paths.js';
import { sameTree } from '../shared/same-tree.js';
import { isInsideDir } from '../shared/fs-ops.js';
import { lookUpSkills, memoSkillIndex, skillName } from '../shared/skill-names.js';
import { opencodeConfigDir } from './permission.js';

/**
 * The skill directories OpenCode scans besides its own: `.claude/skills` and `.agents/skills`
 * (Claude Code and Agents compatible) and the `skill`/`skills` dirs of its config directories,
 * for the user, and for a project also the project's. A user-scope installation's deny applies
 * in every project; only the user's roots can be known then.
 */
export function opencodeScanRoots(ctx: HostContext): string[] {
  const both = (dir: string) => [join(dir, 'skill'), join(dir, 'skills')];
  const roots = [
    join(ctx.home, '.claude', 'skills'), join(ctx.home, '.agents', 'skills'),
    ...both(opencodeConfigDir(ctx)), ...both(join(ctx.home, '.opencode')),
    ...(ctx.env.OPENCODE_CONFIG_DIR ? both(resolve(ctx.projectRoot ?? ctx.home, ctx.env.OPENCODE_CONFIG_DIR)) : []),
  ];
  if (ctx.scope === 'project' && ctx.projectRoot) {
    const p = ctx.projectRoot;
    roots.push(join(p, '.claude', 'skills'), join(p, '.agents', 'skills'), ...both(join(p, '.opencode')));
  }
  return roots.filter((r, i) => roots.indexOf(r) === i);
}

/** OpenCode reads `**\/SKILL.md` below each root; a few levels are all a skill tree has. */
const MAX_DEPTH = 4;

/**
 * OpenCode's `permission.skill` applies by name, and it keeps one skill per name: a skill of the
 * user's own with the name of one of Forge's, in a directory OpenCode also scans, is turned off
 * by Forge's deny (or hides Forge's enabled one, or is hidden by it). Found by its SKILL.md name;
 * Forge's own projections (links into the store, copies of the release, the installation's
 * directories) are not the user's.
 */
export async function opencodeNameShadows(req: ProjectionRequest, ctx: HostContext, skillRoot: string, own: Iterable<string>): Promise<Diagnostic[]> {
  if (req.skills.length === 0) return [];
  const store = sfPaths(ctx.env).store;
  const mine = [...own];
  // the installation's own directories and what is below them are Forge's (links into the store are skipped by the scan)
  const isMine = (dir: string) => mine.some((m) => dir === m || isInsideDir(dir, m));
  const out: Diagnostic[] = [];
  const byName = new Map(req.skills.map((s) => [s.name, s]));
  for (const root of opencodeScanRoots(ctx)) {
    // only the skills named like one of this release's: not every skill of the root
    const index = await memoSkillIndex(root, MAX_DEPTH, store, true, 'opencode', (found) => [skillName(found)], ctx.memo);
    for (const found of lookUpSkills(index, byName.keys())) {
      if (isMine(found.dir)) continue;
      const s = byName.get(skillName(found))!;
      // a copy of the release (another host's projection that could not link) is Forge's too
      if (await sameTree(found.dir, s.sourceDir)) continue;
      out.push({ code: 'SF_ADAPTER_NAME_SHADOW', severity: 'warning', file: found.dir,
        message: s.enabled
          ? `OpenCode also sees a skill named "${s.name}" at ${found.dir} that Forge does not manage; OpenCode keeps one skill per name, so one of the two hides the other`
          : `OpenCode also sees a skill named "${s.name}" at ${found.dir} that Forge does not manage; Forge's permission.skill "${s.name}": "deny" (${s.skillId} is disabled) applies by name, so it turns that skill off too`,
        hint: `Rename one of them if they are different skills (Forge's is ${s.skillId} in ${skillRoot}).` });
    }
  }
  return out;
}
