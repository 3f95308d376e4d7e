import type { HostAdapter } from '../../core/install/host-adapter.js';
import { createGenericAdapter, type GenericAdapterOptions } from './adapter.js';
import { GENERIC_AGENTS } from './agents.js';

export { GENERIC_AGENTS, type GenericAgentEntry } from './agents.js';
export { createGenericAdapter } from './adapter.js';
export { expandAgentPath } from './paths.js';

/** One generic adapter per row of the agents table. */
export function genericAdapters(options: GenericAdapterOptions = {}): HostAdapter[] {
  return GENERIC_AGENTS.map((entry) => createGenericAdapter(entry, options));
}
