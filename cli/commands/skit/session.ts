import { SfError } from '../../../core/errors/index.js';
import type { Session } from '../../../core/install/context.js';
import type { HostAdapter, Scope } from '../../../core/install/host-adapter.js';
import { progress } from '../../output/print.js';

/** Helpers shared by the install-family commands: the session, --scope and --agent parsing. */

/** A Session for this process, with the adapter registry (imported lazily). */
export async function cliSession(): Promise<Session> {
  const [{ sessionFrom }, { getAdapter, allAdapters }, { projectionModeFrom }, { claimWaitFrom }] = await Promise.all([
    import('../../../core/install/context.js'), import('../../../adapters/index.js'), import('../../../adapters/shared/fs-ops.js'), import('../../../core/install/journal.js'),
  ]);
  // a mistyped setting fails before anything starts, not halfway through a change
  projectionModeFrom(process.env);
  claimWaitFrom(process.env);
  return sessionFrom(process.env, process.cwd(), { get: getAdapter, all: allAdapters }, progress);
}

export function parseScope(value: string | undefined): Scope | undefined {
  if (value === undefined) return undefined;
  if (value === 'user' || value === 'project') return value;
  throw new SfError('SF_E_USAGE', `--scope must be "project" or "user", not "${value}"`, { hint: 'project: this project\'s agent directories; user: your global ones' });
}

/** `--agent a,b|all` -> adapters, 'all', or undefined (default: detected agents). */
export async function parseAgents(value: string | undefined): Promise<HostAdapter[] | 'all' | undefined> {
  if (value === undefined) return undefined;
  const { parseAgentOption } = await import('../../../adapters/index.js');
  const parsed = parseAgentOption(value);
  return parsed.all ? 'all' : parsed.adapters;
}

/** Like parseAgents, for commands that act on recorded targets (no detection): `all` means every target. */
export async function parseTargetAgents(value: string | undefined): Promise<HostAdapter[] | undefined> {
  const agents = await parseAgents(value);
  return agents === 'all' ? undefined : agents;
}
