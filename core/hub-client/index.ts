/**
 * core/hub-client: the client side of the Forge hub registry: stored logins
 * (`$SF_HOME/credentials.json`), an HTTP client that maps hub errors to SfErrors, and
 * verified release downloads. The source resolver for hub ids and URLs is core/sources/hub.ts.
 */
import { hubResolver } from '../sources/hub.js';
import type { SourceResolver } from '../sources/types.js';
import { knownHubs } from './credentials.js';

export { bearerToken, withoutSecret, type TokenSource } from './bearer.js';
export { HubClient, readLimited, MAX_HUB_DOWNLOAD_BYTES } from './client.js';
export { publishedShape, skitPageShape, userShape, type HubUser, type PublishedRelease, type RemoteSkit, type SkitPage } from './answers.js';
export {
  credentialsPath, hubOrigin, knownHubs, readCredentials, removeLogin, resolveHubTarget, saveLogin, writeCredentials,
  type CredentialsFile, type HubLogin, type HubTarget,
} from './credentials.js';
export { downloadRelease, fetchRelease, parseSkitRef, quarantineWarning, treeBundleHash, type HubRelease } from './release.js';

/**
 * The hub resolvers for this environment (the logged-in hubs, `SF_HUB_URL`/`SF_HUB_TOKEN`):
 * pass them as `resolvers` to installs and updates. Empty when no hub is known.
 */
export async function hubResolversFor(env: NodeJS.ProcessEnv = process.env): Promise<SourceResolver[]> {
  const hubs = await knownHubs(env);
  return hubs.length ? [hubResolver({ hubs })] : [];
}
export { hubSourceOf, verifyAgainstHub } from './verify.js';
