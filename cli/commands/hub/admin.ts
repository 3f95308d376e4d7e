import { command, flag, optional, positional, string } from 'cmd-ts';
import { option, subcommands } from '../../args.js';
import { resolve } from 'node:path';
import { err, out, printJson } from '../../output/print.js';
import { isTerminal } from '../../output/stdio.js';
import { defaultHubDataDir } from './data-dir.js';

/**
 * `sf hub admin create-user <login> [--admin]`: the documented bootstrap. It writes directly into
 * the data directory (run it before `sf hub serve`, or while the hub is stopped) and prints the new
 * user's first personal access token exactly once (alone on stdout unless that is a terminal).
 */
const createUser = command({
  name: 'create-user',
  description: 'Create a hub user and its first personal access token (prints the token once)',
  args: {
    login: positional({ type: string, displayName: 'login', description: 'login name of the account to create' }),
    admin: flag({ long: 'admin', description: 'make the user an administrator (token gets every scope)' }),
    data: option({ long: 'data', type: optional(string), description: 'hub data directory (default $SF_HOME/hub)' }),
    json: flag({ long: 'json', description: 'machine-readable output' }),
  },
  handler: async ({ login, admin, data, json }) => {
    const dataDir = resolve(data ?? defaultHubDataDir());
    // checked before the data directory is opened (or created)
    (await import('../../../hub/auth/login.js')).checkLogin(login);
    const { openEmbeddedStorage } = await import('../../../hub/storage/embedded/lmdb-store.js');
    const { issueToken } = await import('../../../hub/auth/tokens.js');
    const storage = openEmbeddedStorage(dataDir);
    try {
      const user = storage.accounts.createUser(login, admin);
      const scopes = admin
        ? (['registry:read', 'registry:write', 'telemetry:write', 'admin'] as const)
        : (['registry:read', 'registry:write', 'telemetry:write'] as const);
      const { secret, record } = issueToken(storage.tokens, { userId: user.id, kind: 'pat', name: 'bootstrap', scopes: [...scopes] });
      if (json) printJson({ user, token: secret, tokenId: record.id, scopes: record.scopes });
      else printCreated(`created user ${user.login}${admin ? ' (admin)' : ''} in ${dataDir}`, secret);
    } finally {
      await storage.close();
    }
  },
});

/**
 * On a terminal, both lines on stdout. Redirected (`> token.txt`, a pipe), stdout gets only the
 * token, one line, so that the file can go straight into `sf login --hub URL < token.txt`.
 */
function printCreated(summary: string, token: string): void {
  if (isTerminal('stdout')) {
    out(summary);
    out(`token (shown once, store it now): ${token}`);
    return;
  }
  err(summary);
  err('token (shown once) written to stdout; store it now');
  out(token);
}

export const hubAdminCommand = subcommands({ name: 'admin', description: 'Offline administration of a hub data directory', cmds: { 'create-user': createUser } });
