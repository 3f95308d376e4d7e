import { SfError } from '../../../core/errors/index.js';
import type { HubTarget } from '../../../core/hub-client/credentials.js';

/**
 * The one "no Forge hub is configured" error: registry commands (`hubFlag`: they take --hub) and
 * `sf add skit owner/name` give the same hint.
 */
export function noHubConfigured(message = 'no Forge hub is configured', hubFlag = true): SfError {
  return new SfError('SF_E_USAGE', message, { hint: `run \`sf login --hub <url>\`${hubFlag ? ', pass --hub <url>' : ''}, or set SF_HUB_URL=<url>` });
}

/** The hub for a registry command (`--hub`, SF_HUB_URL, or the default login); `needsToken` for writes. */
export async function hubTargetFor(hub: string | undefined, needsToken: boolean): Promise<HubTarget> {
  const { resolveHubTarget } = await import('../../../core/hub-client/credentials.js');
  const target = await resolveHubTarget(hub);
  if (!target) throw noHubConfigured();
  if (needsToken && !target.token) {
    throw new SfError('SF_E_AUTH', `not logged in to ${target.url}`, { hint: `run \`sf login --hub ${target.url}\`, or set SF_HUB_TOKEN` });
  }
  return target;
}
