import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SfError, hasErrno } from '../../core/errors/index.js';
import type { HostAdapter, HostContext, HostDetection, ProjectedPath, ProjectionRecord, ProjectionRequest } from '../../core/install/host-adapter.js';
import { assertLandsInProject } from '../../core/fs/contained.js';
import { sfPaths } from '../../core/library/paths.js';
import { diagnoseProjection } from '../shared/drift.js';
import { projectionModeFrom, type LinkOps } from '../shared/fs-ops.js';
import { cleanStaleStaging, projectSkillDirs } from '../shared/project.js';
import { removeProjectedPath } from '../shared/remove.js';
import { assertProjectThere } from '../shared/project-root.js';
import { checkDestinations } from '../config/collisions.js';
import type { GenericAgentEntry } from './agents.js';
import { expandAgentPath, userSkillDir } from './paths.js';

/** Project directories shared by many agents (or too generic to mean anything on their own). */
const SHARED_PROJECT_DIRS = new Set(['.agents', '.', 'data', 'agent']);

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return false;
    throw e;
  }
}

/** A skill name used as a directory name must be one plain path segment. */
function skillDirName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) {
    throw new SfError('SF_E_UNSAFE_PATH', `skill name "${name}" cannot be used as a directory name`, { hint: 'skill names are lowercase letters, digits and hyphens' });
  }
  return name;
}

export interface GenericAdapterOptions {
  /** injected link creation (tests make it fail to prove the copy fallback) */
  link?: LinkOps;
}

/**
 * A HostAdapter for an agent that reads Agent Skills from a directory and has no per-skill
 * on/off control: disabled skills are simply not projected.
 */
export function createGenericAdapter(entry: GenericAgentEntry, options: GenericAdapterOptions = {}): HostAdapter {
  const storeRoot = (ctx: HostContext) => sfPaths(ctx.env).store;

  const skillRoot = (ctx: HostContext): string => {
    if (ctx.scope === 'project') {
      if (!entry.project) throw new SfError('SF_E_USAGE', `${entry.displayName} has no project skill directory`, { hint: 'use --scope user' });
      if (!ctx.projectRoot) throw new SfError('SF_E_USAGE', 'a project install needs a project root', { hint: 'run inside the project or pass --scope user' });
      return join(ctx.projectRoot, ...entry.project.split('/'));
    }
    const dir = userSkillDir(entry, ctx);
    if (!dir) throw new SfError('SF_E_USAGE', `${entry.displayName} has no global skill directory`, { hint: 'run inside a project and use --scope project' });
    return dir;
  };

  const record = (ctx: HostContext, root: string, paths: ProjectedPath[]): ProjectionRecord => ({
    agent: entry.id,
    scope: ctx.scope,
    ...(ctx.projectRoot && ctx.scope === 'project' ? { projectRoot: ctx.projectRoot } : {}),
    skillRoot: root,
    paths,
    configEdits: [],
  });

  /**
   * Where the enabled skills go in `root`. As with the native adapters, an entry that is not
   * Forge's (the user's own skill in Forge's place) fails with SF_E_NAME_COLLISION before anything
   * is written.
   */
  const enabledDests = async (req: ProjectionRequest, ctx: HostContext, root: string, previous?: ProjectionRecord) => {
    assertProjectThere(ctx, req.skitId);
    if (ctx.scope === 'project' && ctx.projectRoot) assertLandsInProject(root, ctx.projectRoot, `the ${entry.displayName} skill directory`);
    const enabled = req.skills.filter((skill) => skill.enabled);
    const dests = await checkDestinations({ ...req, skills: enabled }, root, storeRoot(ctx), previous);
    return enabled.map((skill, i) => ({ skillId: skill.skillId, sourceDir: skill.sourceDir, dest: dests[i].dest }));
  };

  const projectEnabled = async (targets: Awaited<ReturnType<typeof enabledDests>>, ctx: HostContext, root: string): Promise<ProjectedPath[]> => {
    await cleanStaleStaging(root);
    const modes = await projectSkillDirs(targets, { mode: projectionModeFrom(ctx.env), link: options.link });
    return targets.map((t, i) => ({ skillId: t.skillId, path: t.dest, mode: modes[i] }));
  };

  return {
    id: entry.id,
    aliases: entry.aliases ?? [],
    displayName: entry.displayName,
    nativeEnablement: false,
    skillRoot,

    async detect(ctx: HostContext): Promise<HostDetection> {
      const evidence: string[] = [];
      for (const template of entry.detect) {
        const path = expandAgentPath(template, ctx);
        if (await exists(path)) evidence.push(`found ${path}`);
      }
      const marker = entry.project ? dirname(entry.project) : '.';
      if (ctx.scope === 'project' && ctx.projectRoot && !SHARED_PROJECT_DIRS.has(marker.split('/')[0])) {
        const path = join(ctx.projectRoot, ...marker.split('/'));
        if (await exists(path)) evidence.push(`found ${path}`);
      }
      return { present: evidence.length > 0, evidence, configFiles: [] };
    },

    async project(req, ctx, previous) {
      const root = skillRoot(ctx);
      return record(ctx, root, await projectEnabled(await enabledDests(req, ctx, root, previous), ctx, root));
    },

    async setEnablement(req, previous, ctx) {
      // where the installation is, even when skillRoot(ctx) now says otherwise (OpenClaw's current
      // home made after an install into a legacy one): a second root would split it
      const root = previous.skillRoot;
      const targets = await enabledDests(req, ctx, root, previous);
      const enabledIds = new Set(req.skills.filter((s) => s.enabled).map((s) => s.skillId));
      for (const p of previous.paths) if (!enabledIds.has(p.skillId)) await removeProjectedPath(p, storeRoot(ctx));
      // a disabled skill linked into the root without a record (drift) goes too; only links into the store are touched
      for (const s of req.skills) {
        if (!s.enabled) await removeProjectedPath({ skillId: s.skillId, path: join(root, skillDirName(s.name)), mode: 'symlink' }, storeRoot(ctx));
      }
      return record(ctx, root, await projectEnabled(targets, ctx, root));
    },

    async unproject(previous, ctx) {
      for (const p of previous.paths) await removeProjectedPath(p, storeRoot(ctx));
    },

    diagnose(req, previous, ctx) {
      return diagnoseProjection(req, previous, { nativeEnablement: false, storeRoot: storeRoot(ctx) });
    },
  };
}
