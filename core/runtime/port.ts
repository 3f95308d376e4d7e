import { SfError } from '../errors/index.js';

/** `port` when it is a TCP port (0, any free port, only where `anyFree`); SF_E_USAGE naming `flag` otherwise. */
export function checkPort(port: number, flag = '--port', anyFree = false): number {
  if (!Number.isInteger(port) || port < (anyFree ? 0 : 1) || port > 65535) {
    throw new SfError('SF_E_USAGE', `${flag} ${port} is not a TCP port`, { hint: anyFree ? 'use 1-65535, or 0 for any free port' : 'use 1-65535' });
  }
  return port;
}
