import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { SfError } from '../errors/index.js';
import { mkdirDurableSync, removeFileDurable, writeFileAtomic } from '../fs/atomic.js';
import { HubClient } from '../hub-client/client.js';
import { aString, objectWith } from '../hub-client/shape.js';
import { resolveHubTarget } from '../hub-client/credentials.js';

/**
 * The hub destination's device credential: created on the hub with the user's stored login
 * (`sf login`), scoped to telemetry writes only, and kept in a 0600 file under
 * $SF_HOME/observe/credentials/ that the observer reads at send time. The secret never appears
 * in argv, config.json, logs or command output.
 */

export interface DeviceCredential {
  /** the hub's id of the credential (also used as forge.device.id) */
  id: string;
  /** file holding the secret */
  file: string;
  hub: string;
}

export const credentialFile = (sfHome: string, destination: string): string => join(sfHome, 'observe', 'credentials', `${destination}.token`);

/** Writes a secret to a 0600 file (directory 0700), atomically and durably. */
export async function writeSecretFile(file: string, secret: string): Promise<void> {
  mkdirDurableSync(dirname(file), 0o700);
  await writeFileAtomic(file, secret + '\n', { mode: 0o600 });
}

/** Deletes a credential file Forge created (absent is fine). */
export async function removeSecretFile(file: string): Promise<void> {
  await removeFileDurable(file);
}

/** The hub to export to: `url`, else SF_HUB_URL, else the default `sf login` hub. */
export async function hubForObserve(url: string | undefined, env: NodeJS.ProcessEnv): Promise<{ url: string; token?: string }> {
  const target = await resolveHubTarget(url, env);
  if (!target) {
    throw new SfError('SF_E_USAGE', 'no hub to export to', { hint: 'log in first (`sf login --hub URL`) or name the hub: --destination hub:https://hub.example.com' });
  }
  return target;
}

/**
 * Creates a telemetry-write device credential on the hub with the stored login and saves it for
 * `destination`. Needs a login (personal access token) for that hub.
 */
export async function createDeviceCredential(sfHome: string, destination: string, hub: { url: string; token?: string }, fetchImpl?: typeof fetch): Promise<DeviceCredential> {
  if (!hub.token) {
    throw new SfError('SF_E_AUTH', `not logged in to ${hub.url}, so Forge cannot create a device credential`, {
      hint: `run \`sf login --hub ${hub.url}\` first, or pass --token-env VAR naming a variable that holds a device credential`,
    });
  }
  const client = new HubClient({ url: hub.url, token: hub.token }, fetchImpl ? { fetch: fetchImpl } : {});
  const res = await client.request('POST', '/api/v1/tokens', {
    body: JSON.stringify({ kind: 'device', name: `sf observe on ${hostname()}`.slice(0, 100), scopes: ['telemetry:write'] }),
    headers: { 'content-type': 'application/json' },
  });
  // an answer that is not JSON, or has no token and id, is SF_E_FETCH naming the hub and path
  const body = await client.readJson<{ token: string; id: string }>(res, 'POST', '/api/v1/tokens', objectWith({ token: aString, id: aString }));
  const file = credentialFile(sfHome, destination);
  await writeSecretFile(file, body.token);
  return { id: body.id, file, hub: hub.url };
}
