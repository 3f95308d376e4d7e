import { join } from 'node:path';
import { SfError } from '../../core/errors/index.js';
import { userHome } from '../../core/library/paths.js';
import { observerPaths } from '../../core/observer/paths.js';
import { claudeObserveAdapter } from '../claude-code/observe.js';
import { codexObserveAdapter } from '../codex/observe.js';
import { opencodeObserveAdapter } from '../opencode/observe.js';
import type { ObserveContext, ObserveHostAdapter, ObserveHostId } from './types.js';

/** Every host with an observability adapter, in a stable order. */
export const OBSERVE_ADAPTERS: readonly ObserveHostAdapter[] = [claudeObserveAdapter, codexObserveAdapter, opencodeObserveAdapter];

const ALIASES: Record<string, ObserveHostId> = { claude: 'claude-code', 'claude-code': 'claude-code', codex: 'codex', opencode: 'opencode' };

export function observeAdapter(id: string): ObserveHostAdapter {
  const canonical = ALIASES[id.trim().toLowerCase()];
  const a = OBSERVE_ADAPTERS.find((x) => x.id === canonical);
  if (!a) {
    throw new SfError('SF_E_UNKNOWN_AGENT', `no observability adapter for "${id}"`, {
      hint: `observability adapters: ${OBSERVE_ADAPTERS.map((x) => x.id).join(', ')} (or "all" for the ones present)`,
    });
  }
  return a;
}

/** Parses `--agents a,b` (or `all`): undefined means every agent detected on this machine. */
export function parseObserveAgents(value: string | undefined): ObserveHostAdapter[] | undefined {
  if (value === undefined || value.trim().toLowerCase() === 'all') return undefined;
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new SfError('SF_E_USAGE', '--agents needs at least one agent name', { hint: 'e.g. --agents claude-code,codex or --agents all' });
  return [...new Map(names.map((n) => observeAdapter(n)).map((a) => [a.id, a])).values()];
}

/** The observe context for an environment and receiver port. */
export function observeContext(env: NodeJS.ProcessEnv, port: number): ObserveContext {
  const paths = observerPaths(env);
  return {
    home: userHome(env), env, sfHome: paths.home, port,
    backupDir: join(paths.backups, 'observe'),
    hooksDir: join(paths.home, 'observe', 'hooks'),
    // the directory the observer replays at start
    spoolDir: paths.spool,
  };
}
