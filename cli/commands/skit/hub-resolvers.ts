import type { SourceResolver } from '../../../core/sources/types.js';

/**
 * The hub registry resolver for install and update (`owner/name[@version]`, hub release and
 * SKIT URLs), from the stored logins and SF_HUB_URL / SF_HUB_TOKEN. Empty when no hub is known.
 */
export async function hubResolvers(): Promise<SourceResolver[]> {
  const { hubResolversFor } = await import('../../../core/hub-client/index.js');
  return hubResolversFor(process.env);
}
