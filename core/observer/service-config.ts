import { createHash } from 'node:crypto';
import type { ObserveConfig } from './config.js';

/**
 * A digest of the observe configuration as the observer reads it at start. The observer writes it
 * to its runtime file ($SF_HOME/run/observe.json); `sf observe doctor` compares it with the digest
 * of config.json now, so a config changed after the start (destinations, links, the port) is
 * reported until the observer is restarted. Keys are sorted: the digest depends on values only.
 */
export function observeConfigDigest(config: ObserveConfig): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
    return v;
  };
  return createHash('sha256').update(JSON.stringify(canonical(config))).digest('hex').slice(0, 32);
}
