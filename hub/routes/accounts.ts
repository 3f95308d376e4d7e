import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { roleOnOwner } from '../auth/access.js';
import { requireScope, type HubEnv } from '../auth/principal.js';
import { issueToken, rotateToken } from '../auth/tokens.js';
import type { CredentialKind, Scope, TokenRecord } from '../storage/ports.js';
import { readJson } from './read-json.js';

const LOGIN = /^[a-z0-9](?:[a-z0-9-]{0,37}[a-z0-9])?$/;

const publicToken = (t: TokenRecord) => ({
  id: t.id, kind: t.kind, name: t.name, scopes: t.scopes, createdAt: t.createdAt, revokedAt: t.revokedAt ?? null, rotatedFrom: t.rotatedFrom ?? null,
});

function checkLogin(login: unknown): string {
  if (typeof login !== 'string' || !LOGIN.test(login)) {
    throw new SfError('SF_E_USAGE', `invalid login ${JSON.stringify(login)}`, { hint: 'use 1-39 lowercase letters, digits and inner hyphens' });
  }
  return login;
}

/** Accounts, organizations and credentials. Every route needs a PAT; managing others needs admin. */
export const accountRoutes = new Hono<HubEnv>()
  .get('/api/v1/user', (c) => {
    const p = c.get('principal');
    if (!p.user || !p.token) throw new SfError('SF_E_AUTH', 'authentication required', { hint: 'send Authorization: Bearer <token>' });
    return c.json({ id: p.user.id, login: p.user.login, admin: p.user.admin, token: publicToken(p.token) });
  })
  .post('/api/v1/users', async (c) => {
    requireScope(c, 'admin');
    const body = await readJson<{ login?: unknown; admin?: unknown }>(c);
    const user = c.get('storage').accounts.createUser(checkLogin(body.login), body.admin === true);
    return c.json(user, 201);
  })
  .get('/api/v1/tokens', (c) => {
    const p = requireScope(c, 'registry:read');
    return c.json({ tokens: c.get('storage').tokens.listForUser(p.user.id).map(publicToken) });
  })
  .post('/api/v1/tokens', async (c) => {
    const p = c.get('principal');
    if (!p.user || p.token?.kind !== 'pat') throw new SfError('SF_E_AUTH', 'a personal access token is required to create credentials', {
      hint: 'send Authorization: Bearer <personal access token>; device credentials cannot create tokens',
    });
    const body = await readJson<{ name?: unknown; scopes?: unknown; kind?: unknown; userLogin?: unknown }>(c);
    const kind: CredentialKind = body.kind === 'device' ? 'device' : 'pat';
    const scopes = (Array.isArray(body.scopes) ? body.scopes : kind === 'device' ? ['telemetry:write'] : []) as Scope[];
    // a token can only hand out scopes it holds itself, unless it is an admin token
    const isAdmin = p.scopes.has('admin');
    const missing = scopes.filter((s) => !p.scopes.has(s));
    if (!isAdmin && missing.length) {
      throw new SfError('SF_E_FORBIDDEN', `cannot grant scopes this credential does not hold: ${missing.join(', ')}`, {
        hint: `request only scopes your token holds (${[...p.scopes].sort().join(', ') || 'none'}), or use an admin token`,
      });
    }
    let userId = p.user.id;
    if (typeof body.userLogin === 'string') {
      if (!isAdmin) throw new SfError('SF_E_FORBIDDEN', 'only admins can issue credentials for other users', { hint: 'leave out userLogin to issue a credential for yourself, or use an admin token' });
      const owner = c.get('storage').accounts.findOwner(body.userLogin);
      if (owner?.kind !== 'user') throw new SfError('SF_E_NOT_FOUND', `user ${body.userLogin} does not exist`, {
        hint: 'check the login; create the user with POST /api/v1/users or `sf hub admin create-user <login>`',
      });
      userId = owner.id;
    }
    const name = typeof body.name === 'string' && body.name.length <= 100 ? body.name : kind === 'device' ? 'device' : 'token';
    const { secret, record } = issueToken(c.get('storage').tokens, { userId, kind, name, scopes });
    return c.json({ token: secret, ...publicToken(record) }, 201);
  })
  .post('/api/v1/tokens/:id/rotate', (c) => {
    const p = requireScope(c, 'registry:read');
    const t = c.get('storage').tokens.get(c.req.param('id'));
    if (!t || (t.userId !== p.user.id && !p.scopes.has('admin'))) throw new SfError('SF_E_NOT_FOUND', 'no such token', { hint: 'list your tokens and their ids with GET /api/v1/tokens' });
    const { secret, record } = rotateToken(c.get('storage').tokens, t.id);
    return c.json({ token: secret, ...publicToken(record) }, 201);
  })
  .delete('/api/v1/tokens/:id', (c) => {
    const p = c.get('principal');
    if (!p.user || p.token?.kind !== 'pat') throw new SfError('SF_E_AUTH', 'a personal access token is required', {
      hint: 'send Authorization: Bearer <personal access token>; device credentials cannot revoke tokens',
    });
    const t = c.get('storage').tokens.get(c.req.param('id'));
    if (!t || (t.userId !== p.user.id && !p.scopes.has('admin'))) throw new SfError('SF_E_NOT_FOUND', 'no such token', { hint: 'list your tokens and their ids with GET /api/v1/tokens' });
    return c.json(publicToken(c.get('storage').tokens.revoke(t.id, new Date().toISOString())!));
  })
  .post('/api/v1/orgs', async (c) => {
    const p = requireScope(c, 'registry:write');
    const body = await readJson<{ login?: unknown }>(c);
    return c.json(c.get('storage').accounts.createOrg(checkLogin(body.login), p.user.id), 201);
  })
  .put('/api/v1/orgs/:org/members/:login', async (c) => {
    const { accounts, org, member } = membershipTarget(c);
    const body = await readJson<{ role?: unknown }>(c);
    const role = body.role === 'owner' ? 'owner' : 'member';
    return c.json(accounts.setOrgMember(org.id, member.id, role));
  })
  .delete('/api/v1/orgs/:org/members/:login', (c) => {
    const { accounts, org, member } = membershipTarget(c);
    return c.json(accounts.setOrgMember(org.id, member.id, null));
  });

/**
 * The organization and user a membership route names. Only an owner of the organization may change
 * its members; to anyone else the organization does not exist.
 */
function membershipTarget(c: Context<HubEnv>) {
  const p = requireScope(c, 'registry:write');
  const { accounts } = c.get('storage');
  const org = accounts.findOwner(c.req.param('org') ?? '');
  if (org?.kind !== 'org' || roleOnOwner(accounts, p, org.login) !== 'owner') throw new SfError('SF_E_NOT_FOUND', 'no such organization', {
    hint: 'check the organization login; only its owners can change its members',
  });
  const login = c.req.param('login') ?? '';
  const member = accounts.findOwner(login);
  if (member?.kind !== 'user') throw new SfError('SF_E_NOT_FOUND', `user ${login} does not exist`, {
    hint: 'check the login; a hub admin creates users with POST /api/v1/users or `sf hub admin create-user <login>`',
  });
  return { accounts, org, member };
}
