import { join } from 'node:path';
import { sfPaths } from '../../../core/library/paths.js';

/** `$SF_HOME/hub`, the embedded hub's default data directory ($SF_HOME unset or empty: ~/.sf). */
export function defaultHubDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(sfPaths(env).home, 'hub');
}
