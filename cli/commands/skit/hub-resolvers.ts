import type { SourceResolver } from '../../../core/sources/types.js';
import { noHubConfigured } from './hub-target.js';

/**
 * The hub registry resolver for install and update (`owner/name[@version]`, hub release and
 * SKIT URLs), from the stored logins and SF_HUB_URL / SF_HUB_TOKEN. With no hub known, a
 * resolver that claims hub ids only to say that no hub is configured (a local directory of the
 * same spelling still wins: local paths are resolved first).
 */
export async function hubResolvers(): Promise<SourceResolver[]> {
  const { hubResolversFor, parseSkitRef } = await import('../../../core/hub-client/index.js');
  const found = await hubResolversFor(process.env);
  return found.length ? found : [noHubResolver(parseSkitRef)];
}

function noHubResolver(parseSkitRef: (ref: string) => unknown): SourceResolver {
  return {
    name: 'hub',
    forms: ['owner/name[@version] (Forge hub: `sf login --hub <url>` or SF_HUB_URL first)'],
    matches: (input) => parseSkitRef(input) !== undefined,
    resolve: async (input) => {
      throw noHubConfigured(`"${input}" looks like a Forge hub id (owner/name[@version]), but no Forge hub is configured`, false);
    },
  };
}
