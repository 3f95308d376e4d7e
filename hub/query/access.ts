import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { isAdmin, type HubEnv } from '../auth/principal.js';
import type { UserRecord } from '../storage/ports.js';

/** True for an admin acting through an admin-scoped PAT. */
export function isAdminPat(c: Context<HubEnv>): boolean {
  return isAdmin(c.get('principal'));
}

/**
 * Reading telemetry needs a personal access token: device credentials can only write. Returns the
 * caller.
 */
export function requireTelemetryReader(c: Context<HubEnv>): UserRecord {
  const p = c.get('principal');
  if (!p.user || !p.token) throw new SfError('SF_E_AUTH', 'authentication required to read telemetry', { hint: 'send Authorization: Bearer <personal access token>' });
  if (p.token.kind !== 'pat') throw new SfError('SF_E_FORBIDDEN', 'device credentials can only write telemetry', { hint: 'use a personal access token to query' });
  return p.user;
}

/**
 * The account `login` names, when the caller may read or manage it: its own user, or any user
 * for an admin. Anything else is "not found", so account names cannot be probed.
 */
export function accountFor(c: Context<HubEnv>, login: string): UserRecord {
  const caller = requireTelemetryReader(c);
  const owner = /^[A-Za-z0-9-]{1,39}$/.test(login) ? c.get('storage').accounts.findOwner(login) : undefined;
  const user = owner?.kind === 'user' ? c.get('storage').accounts.getUser(owner.id) : undefined;
  if (!user || (user.id !== caller.id && !isAdminPat(c))) {
    throw new SfError('SF_E_NOT_FOUND', `no telemetry account ${login.length > 40 ? `${login.slice(0, 40)}...` : login}`, { hint: 'telemetry accounts are users; use your own login' });
  }
  return user;
}
