import { SfError } from '../../../core/errors/index.js';
import type { HubTarget } from '../../../core/hub-client/credentials.js';

/** The hub for a registry command (`--hub`, SF_HUB_URL, or the default login); `needsToken` for writes. */
export async function hubTargetFor(hub: string | undefined, needsToken: boolean): Promise<HubTarget> {
  const { resolveHubTarget } = await import('../../../core/hub-client/credentials.js');
  const target = await resolveHubTarget(hub);
  if (!target) {
    throw new SfError('SF_E_USAGE', 'no Forge hub is configured', { hint: 'run `sf login --hub <url>`, or pass --hub <url>' });
  }
  if (needsToken && !target.token) {
    throw new SfError('SF_E_AUTH', `not logged in to ${target.url}`, { hint: `run \`sf login --hub ${target.url}\`, or set SF_HUB_TOKEN` });
  }
  return target;
}
