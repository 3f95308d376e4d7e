import { SfError } from '../errors/index.js';
import { isLoopbackHost } from '../text/loopback.js';

/**
 * Refuses to send a hub credential (a personal access token or a device credential) over plain
 * http to anything but this machine: anyone on the network path could read and reuse it. Hubs on
 * 127.0.0.1 / localhost are fine; SF_HUB_ALLOW_HTTP=1 allows others on a network the user trusts.
 */
export function assertCredentialTransport(url: string, env: NodeJS.ProcessEnv = process.env): void {
  const u = new URL(url);
  if (u.protocol !== 'http:' || isLoopbackHost(u.hostname) || env.SF_HUB_ALLOW_HTTP === '1') return;
  throw new SfError('SF_E_USAGE', `refusing to send a hub credential over plain http to ${u.host}: anyone on the network path could read it`, {
    hint: `use https://${u.host}${u.pathname.replace(/\/+$/, '')}, or set SF_HUB_ALLOW_HTTP=1 for a hub on a network you trust`,
    data: { url },
  });
}
