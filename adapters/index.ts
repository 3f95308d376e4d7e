import { SfError } from '../core/errors/index.js';
import { compareIds } from '../core/text/compare.js';
import { didYouMean } from '../core/text/suggest.js';
import type { HostAdapter } from '../core/install/host-adapter.js';
import { genericAdapters } from './generic/index.js';
import { createClaudeCodeAdapter } from './claude-code/adapter.js';
import { createCodexAdapter } from './codex/adapter.js';
import { createOpenCodeAdapter } from './opencode/adapter.js';

/**
 * The adapter registry. Native adapters (hosts with their own enablement and config control)
 * replace the generic table entry with the same id; every other agent of the table is served by
 * the generic adapter.
 */
const NATIVE_ADAPTERS: HostAdapter[] = [createClaudeCodeAdapter(), createCodexAdapter(), createOpenCodeAdapter()];

let registry: Map<string, HostAdapter> | undefined;
let byName: Map<string, HostAdapter> | undefined;

function build(): void {
  const adapters = new Map<string, HostAdapter>();
  for (const a of genericAdapters()) adapters.set(a.id, a);
  for (const a of NATIVE_ADAPTERS) adapters.set(a.id, a);
  const names = new Map<string, HostAdapter>();
  for (const a of adapters.values()) {
    names.set(a.id, a);
    for (const alias of a.aliases) if (!adapters.has(alias)) names.set(alias, a);
  }
  registry = adapters;
  byName = names;
}

// compareIds: the localeCompare order, without ICU's first-use cost on every install
const byId = (a: HostAdapter, b: HostAdapter) => compareIds(a.id, b.id);

/** Every adapter, sorted by id. */
export function allAdapters(): HostAdapter[] {
  if (!registry) build();
  return [...registry!.values()].sort(byId);
}

/** The adapter for an id or alias (case-insensitive), or undefined. */
export function findAdapter(nameOrAlias: string): HostAdapter | undefined {
  if (!byName) build();
  return byName!.get(nameOrAlias.trim().toLowerCase());
}

/** The adapter for an id or alias; SF_E_UNKNOWN_AGENT listing the valid names otherwise. */
export function getAdapter(nameOrAlias: string): HostAdapter {
  const adapter = findAdapter(nameOrAlias);
  if (adapter) return adapter;
  if (!byName) build();
  throw new SfError('SF_E_UNKNOWN_AGENT', `unknown agent "${nameOrAlias}"${didYouMean(nameOrAlias.trim(), byName!.keys())}`, {
    hint: `valid agents: ${allAdapters().map((a) => a.id).join(', ')} (or "all")`,
    data: { valid: allAdapters().map((a) => ({ id: a.id, aliases: a.aliases })) },
  });
}

/**
 * Parses an `--agent` value: a comma-separated list of ids or aliases, or `all` (meaning every
 * agent detected on this machine; the caller runs detection). Duplicates collapse; order is kept.
 */
export function parseAgentOption(value: string): { all: boolean; adapters: HostAdapter[] } {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new SfError('SF_E_USAGE', '--agent needs at least one agent name', { hint: 'e.g. --agent claude-code,codex or --agent all' });
  if (names.some((n) => n.toLowerCase() === 'all')) return { all: true, adapters: [] };
  const seen = new Map<string, HostAdapter>();
  for (const n of names) {
    const a = getAdapter(n);
    seen.set(a.id, a);
  }
  return { all: false, adapters: [...seen.values()] };
}
