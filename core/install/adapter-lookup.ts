import type { HostAdapter } from './host-adapter.js';

/**
 * How core/install reaches adapters without importing adapters/ (dependency direction: the CLI
 * passes the registry in).
 */
export interface AdapterRegistry {
  /** the adapter with this canonical id; throws SF_E_UNKNOWN_AGENT when there is none */
  get(id: string): HostAdapter;
  all(): HostAdapter[];
}
