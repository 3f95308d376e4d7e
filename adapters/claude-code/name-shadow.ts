import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
        if (found.storeLink !== undefined && sameSkill(storedSkillOf(found.storeLink, store), req.skitId, s.name)) {
          out.push(otherRelease(s, found.dir, root === userRoot ? 'user' : 'project', record, ctx));
          continue;
        }
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

/** The SKIT and skill a link into the store shows (`<store>/<hex>/skills/<name>`), from the entry's manifest; undefined when unreadable. */
function storedSkillOf(storeLink: string, store: string): { skitId: string; name: string } | undefined {
  const parts = relative(store, storeLink).split(sep);
  if (parts.length !== 3 || parts[1] !== 'skills') return undefined;
  try {
    const manifest = JSON.parse(readFileSync(join(store, parts[0], 'manifest.json'), 'utf8')) as { skitId?: unknown };
    return typeof manifest.skitId === 'string' ? { skitId: manifest.skitId, name: parts[2] } : undefined;
  } catch {
    return undefined;
  }
}

const sameSkill = (stored: { skitId: string; name: string } | undefined, skitId: string, name: string) => stored !== undefined && stored.skitId === skitId && stored.name === name;

/**
 * The same skill of the same SKIT at another release, installed by Forge in the other scope (the
 * user's at v1, a project's at v2, as with npm's global and local packages): one skill to Claude
 * Code, which takes a personal (user-scope) skill before a project's of the same name. Said, as
 * info: there is nothing to repair, and nothing for doctor to keep failing on.
 */
function otherRelease(s: ProjectedSkill, dir: string, foundIn: 'user' | 'project', record: ProjectionRecord, ctx: HostContext): Diagnostic {
  const used = foundIn === 'user' ? `that user-scope copy, not this project's` : record.scope === 'user' ? `this user-scope copy, not the project's` : 'one of the two';
  const where = foundIn === 'project' && record.scope === 'user' && ctx.cwd ? `, when it runs in ${ctx.cwd},` : '';
  return { code: 'SF_ADAPTER_NAME_SHADOW', severity: 'info', file: dir,
    message: `Claude Code${where} also sees ${s.skillId} at ${dir}, another release of it installed by Forge in the ${foundIn} scope; to Claude Code they are one skill, and it uses ${used} (a personal skill comes before a project's of the same name)`,
    hint: `nothing to repair; to have one release everywhere, update or remove one of the two installations (\`sf skit list\` shows both). skillOverrides go by name, so turning ${s.name} off in one scope also turns it off in the other where Claude Code sees both.` };
}
