import { basename, dirname, join } from 'node:path';
import { SfError, isSfError } from '../errors/index.js';
import { assertLandsInProject, landingPath } from '../fs/contained.js';
import type { Session } from './context.js';
import { hostContext } from './context.js';
import type { HostAdapter, Scope } from './host-adapter.js';
import type { TargetSpec } from './plan-types.js';

/**
 * The adapters an install targets: the ones named with --agent, or (no --agent, or `all`) every
 * agent detected for this scope. None detected is an error that asks for --agent.
 */
export async function chooseAdapters(session: Session, agents: HostAdapter[] | 'all' | undefined, scope: Scope, projectRoot?: string): Promise<HostAdapter[]> {
  if (Array.isArray(agents) && agents.length > 0) return agents;
  const detected: HostAdapter[] = [];
  for (const adapter of session.adapters.all()) {
    const ctx = hostContext(session, adapter.id, scope, projectRoot);
    if (!supportsScope(adapter, ctx)) continue;
    if ((await adapter.detect(ctx)).present) detected.push(adapter);
  }
  if (detected.length === 0) {
    throw new SfError('SF_E_USAGE', `no agent was detected ${scope === 'user' ? 'for this user' : `for the project ${projectRoot}`}`, {
      hint: 'name the agents to install for, e.g. --agent claude-code or --agent codex,cursor (`sf skit agents` lists them)',
    });
  }
  return detected;
}

function supportsScope(adapter: HostAdapter, ctx: ReturnType<typeof hostContext>): boolean {
  try {
    adapter.skillRoot(ctx);
    return true;
  } catch (e) {
    // an agent without a skill directory for this scope (e.g. project-only agents in the user scope) cannot be a target
    if (isSfError(e, 'SF_E_USAGE')) return false;
    throw e;
  }
}

/**
 * TargetSpecs of `adapters` for a scope. A project skill directory that a symbolic link carries
 * out of the project is refused here, before anything changes (SF_E_UNSAFE_PATH).
 */
export function targetSpecs(session: Session, adapters: readonly HostAdapter[], scope: Scope, projectRoot?: string): TargetSpec[] {
  return adapters.map((a) => {
    const skillRoot = a.skillRoot(hostContext(session, a.id, scope, projectRoot));
    if (scope === 'project' && projectRoot) assertLandsInProject(skillRoot, projectRoot, `the ${a.displayName} skill directory`);
    return {
      agent: a.id,
      scope,
      ...(scope === 'project' && projectRoot ? { projectRoot } : {}),
      skillRoot,
      nativeEnablement: a.nativeEnablement,
    };
  });
}

/** Ids of the registered adapters with native enablement. */
export function nativeAgentIds(session: Session): string[] {
  return session.adapters.all().filter((a) => a.nativeEnablement).map((a) => a.id);
}

/**
 * Where a skill root really is. Two roots with the same key are one directory (a symbolic link
 * such as `.agents/skills -> ../.claude/skills`), so the agents reading them share it exactly as
 * agents do whose roots have the same name. A root not created yet is keyed by where it would be.
 * This reads the filesystem: the planners' one look at it besides the survey.
 */
export function skillRootKey(skillRoot: string): string {
  return landingPath(skillRoot);
}

/** Whether two skill roots are one directory (by name, or through a symbolic link). */
export function sameSkillRoot(a: string, b: string): boolean {
  return a === b || skillRootKey(a) === skillRootKey(b);
}

/** The key of a skill entry: its root's key and its name (the entry, a link into the store, is not followed). */
export function skillEntryKey(path: string): string {
  return join(skillRootKey(dirname(path)), basename(path));
}
