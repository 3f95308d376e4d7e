import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertNotKernelFilesystem } from '../fs/filesystem-kind.js';

/** Where Forge keeps its local state ($SF_HOME, default ~/.sf; ARCHITECTURE.md "Local state"). */
export interface SfPaths {
  home: string;
  /** the LMDB index */
  library: string;
  /** content-addressed release trees: store/<bundle hex>/ */
  store: string;
  /** store entries being built (renamed into store/ when complete) or deleted */
  storeStaging: string;
  /** private scratch space for sources being fetched; emptied by recovery */
  tmp: string;
  /** the telemetry outbox (append-only JSON lines) */
  outbox: string;
  /** config backups written by adapters */
  backups: string;
}

/** The user's home directory, honouring HOME so tests and sandboxes can point it elsewhere. */
export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME && env.HOME.length > 0 ? resolve(env.HOME) : homedir();
}

/**
 * Resolves $SF_HOME and the paths below it. An $SF_HOME under /proc, /sys or another kernel
 * filesystem is refused here, once, for every command: Node's `mkdir -p` retries forever there.
 */
export function sfPaths(env: NodeJS.ProcessEnv = process.env): SfPaths {
  const home = env.SF_HOME && env.SF_HOME.length > 0 ? resolve(env.SF_HOME) : join(userHome(env), '.sf');
  assertNotKernelFilesystem(home, '$SF_HOME');
  return {
    home,
    library: join(home, 'library.lmdb'),
    store: join(home, 'store'),
    storeStaging: join(home, 'store', '.staging'),
    tmp: join(home, 'tmp'),
    outbox: join(home, 'queue', 'outbox.jsonl'),
    backups: join(home, 'backups'),
  };
}

/** `sha256:<hex>` or `<hex>` -> `<hex>`: the store directory name of a bundle. */
export function bundleHex(bundleHash: string): string {
  return bundleHash.startsWith('sha256:') ? bundleHash.slice('sha256:'.length) : bundleHash;
}
