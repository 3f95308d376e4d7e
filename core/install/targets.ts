import { SfError, isSfError } from '../errors/index.js';
import { assertLandsInProject } from '../fs/contained.js';
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
