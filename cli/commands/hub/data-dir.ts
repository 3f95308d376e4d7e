import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$SF_HOME/hub`, the embedded hub's default data directory. */
export function defaultHubDataDir(): string {
  return join(process.env.SF_HOME ?? join(homedir(), '.sf'), 'hub');
}
