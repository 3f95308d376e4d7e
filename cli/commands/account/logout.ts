import { command, flag, optional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';

/** `sf logout [--hub URL]`: forgets the stored token of a hub (default: the default hub). */
export const logoutCommand = command({
  name: 'logout',
  description: 'Forget the stored token of a Forge hub (the token stays valid until revoked on the hub)',
  args: {
    hub: option({ long: 'hub', type: optional(string), description: 'hub URL (default: the default hub)' }),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: async ({ hub, json }) => {
    const { removeLogin } = await import('../../../core/hub-client/index.js');
    const removed = await removeLogin(hub);
    // loggedOut: the hub whose login was removed; left out when there was none
    if (json) printJson(removed ? { loggedOut: removed } : {});
    else if (removed) out(`logged out of ${sanitize(removed)}; revoke the token on the hub if it may have leaked`);
    else out('not logged in to that hub');
  },
});
