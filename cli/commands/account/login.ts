import { command, flag, string } from 'cmd-ts';
import { option } from '../../args.js';
import { SfError } from '../../../core/errors/index.js';
import { out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { readSecret } from './read-secret.js';
import type { HubUser } from '../../../core/hub-client/index.js';

/**
 * `sf login --hub URL`: reads a personal access token from SF_HUB_TOKEN or stdin (a terminal
 * prompt does not echo it), checks it against the hub (GET /api/v1/user), and stores it in
 * `$SF_HOME/credentials.json` (0600, written atomically). The token is never printed.
 */
export const loginCommand = command({
  name: 'login',
  description: 'Log in to a Forge hub with a personal access token (from stdin or SF_HUB_TOKEN)',
  args: {
    hub: option({ long: 'hub', type: string, description: 'hub URL, e.g. https://hub.example.com' }),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: async ({ hub, json }) => {
    const { HubClient, bearerToken, hubOrigin, saveLogin, credentialsPath, userShape } = await import('../../../core/hub-client/index.js');
    const url = hubOrigin(hub);
    const fromEnv = process.env.SF_HUB_TOKEN?.trim();
    const raw = fromEnv || (await readSecret(`token for ${url}: `));
    if (!raw) {
      throw new SfError('SF_E_USAGE', 'no token given', { hint: 'pipe the token on stdin (`sf login --hub URL < token.txt`) or set SF_HUB_TOKEN' });
    }
    // checked here too, so that only a well-formed token is ever stored
    const tokenSource = fromEnv ? 'SF_HUB_TOKEN' : 'stdin';
    const token = bearerToken(raw, tokenSource, url);
    const user = await new HubClient({ url, token, tokenSource }).getJson<HubUser>('/api/v1/user', userShape);
    if (user.token.kind !== 'pat') {
      throw new SfError('SF_E_FORBIDDEN', 'a device credential cannot be used to log in', { hint: 'create a personal access token on the hub' });
    }
    await saveLogin({ url, token, login: user.login, savedAt: new Date().toISOString() });
    if (json) printJson({ hub: url, login: user.login, scopes: user.token.scopes, credentials: credentialsPath() });
    else out(`logged in to ${sanitize(url)} as ${sanitize(user.login)} (scopes: ${sanitize(user.token.scopes.join(', '))})`);
  },
});
