import { Hono, type Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { roleOnOwner } from '../auth/access.js';
import { checkLogin } from '../auth/login.js';
import { isAdmin, requirePat, requireScope, type HubEnv } from '../auth/principal.js';
import { issueToken, rotateToken } from '../auth/tokens.js';
import { ALL_SCOPES, type CredentialKind, type OrgRole, type Scope, type TokenRecord } from '../storage/ports.js';
import { privateResponses } from './private-responses.js';
import { badField, readJson } from './read-json.js';

const KINDS: readonly CredentialKind[] = ['pat', 'device'];
const ORG_ROLES: readonly OrgRole[] = ['owner', 'member'];
const MAX_TOKEN_NAME = 100;

/**
 * The fields of a token request, each of its own type or absent: a value of another type is a
 * 400 naming the field, never read as absent (a `userLogin` of ["alice"] would otherwise issue the
 * caller's own token, with the scopes meant for alice).
 */
function tokenRequest(body: { name?: unknown; scopes?: unknown; kind?: unknown; userLogin?: unknown }) {
  // absent means the default; null is a value like any other, of the wrong type
  const kind = body.kind === undefined ? 'pat' : body.kind;
  if (!KINDS.includes(kind as CredentialKind)) throw badField('kind', '"pat" or "device"', 'leave kind out for a personal access token, or send "kind": "device"');
  const scopes = body.scopes === undefined ? (kind === 'device' ? ['telemetry:write'] : []) : body.scopes;
  const unknown = Array.isArray(scopes) ? scopes.filter((s) => !ALL_SCOPES.includes(s as Scope)) : [];
  if (!Array.isArray(scopes) || unknown.length) {
    const not = unknown.length ? `, not ${unknown.map((s) => JSON.stringify(s).slice(0, 40)).join(', ')}` : '';
    throw badField('scopes', `a list of scopes from ${ALL_SCOPES.join(', ')}${not}`, 'e.g. "scopes": ["registry:read"]');
  }
  const { name, userLogin } = body;
  if (name !== undefined && (typeof name !== 'string' || name.length < 1 || name.length > MAX_TOKEN_NAME)) {
    throw badField('name', `a string of 1-${MAX_TOKEN_NAME} characters`, 'name the credential after where it is used, e.g. "ci"');
  }
  if (userLogin !== undefined && typeof userLogin !== 'string') throw badField('userLogin', 'a login', 'send the login as a string, e.g. "userLogin": "alice", or leave it out to issue for yourself');
  return { kind: kind as CredentialKind, scopes: scopes as Scope[], name: name as string | undefined, userLogin: userLogin as string | undefined };
}

const publicToken = (t: TokenRecord) => ({
  id: t.id, kind: t.kind, name: t.name, scopes: t.scopes, createdAt: t.createdAt, revokedAt: t.revokedAt ?? null, rotatedFrom: t.rotatedFrom ?? null,
});

/** Accounts, organizations and credentials. Every route needs a PAT; managing others needs admin. */
export const accountRoutes = new Hono<HubEnv>()
  .get('/api/v1/user', (c) => {
    const p = c.get('principal');
    if (!p.user || !p.token) throw new SfError('SF_E_AUTH', 'authentication required', { hint: 'send Authorization: Bearer <token>' });
    return c.json({ id: p.user.id, login: p.user.login, admin: p.user.admin, token: publicToken(p.token) });
  })
  .post('/api/v1/users', privateResponses, async (c) => {
    requireScope(c, 'admin');
    const body = await readJson<{ login?: unknown; admin?: unknown }>(c, ['login', 'admin']);
    if (body.admin !== undefined && typeof body.admin !== 'boolean') throw badField('admin', 'true or false', 'send "admin": true for a hub admin, or leave it out');
    const user = c.get('storage').accounts.createUser(checkLogin(body.login), body.admin === true);
    return c.json(user, 201);
  })
  .get('/api/v1/tokens', (c) => {
    const p = requireScope(c, 'registry:read');
    return c.json({ tokens: c.get('storage').tokens.listForUser(p.user.id).map(publicToken) });
  })
  // answers holding a token secret (or a new account) are for the caller alone: no cache may keep them
  .post('/api/v1/tokens', privateResponses, async (c) => {
    const p = requirePat(c, 'create credentials');
    const body = await readJson<{ name?: unknown; scopes?: unknown; kind?: unknown; userLogin?: unknown }>(c, ['name', 'scopes', 'kind', 'userLogin']);
    const { kind, scopes, name, userLogin } = tokenRequest(body);
    // a token can only hand out scopes it holds itself, unless it is an admin token
    const admin = isAdmin(p);
    const missing = scopes.filter((s) => !p.scopes.has(s));
    if (!admin && missing.length) {
      throw new SfError('SF_E_FORBIDDEN', `cannot grant scopes this credential does not hold: ${missing.join(', ')}`, {
        hint: `request only scopes your token holds (${[...p.scopes].sort().join(', ') || 'none'}), or use an admin token`,
      });
    }
    let user = p.user;
    if (userLogin !== undefined) {
      if (!admin) throw new SfError('SF_E_FORBIDDEN', 'only admins can issue credentials for other users', { hint: 'leave out userLogin to issue a credential for yourself, or use an admin token' });
      const owner = c.get('storage').accounts.findOwner(userLogin);
      const found = owner?.kind === 'user' ? c.get('storage').accounts.getUser(owner.id) : undefined;
      if (!found) throw new SfError('SF_E_NOT_FOUND', `user ${userLogin} does not exist`, {
        hint: 'check the login; create the user with POST /api/v1/users or `sf hub admin create-user <login>`',
      });
      user = found;
    }
    if (scopes.includes('admin') && !user.admin) {
      throw new SfError('SF_E_USAGE', `${user.login} is not an admin, so a credential for them cannot hold the admin scope`, {
        hint: 'leave out the admin scope, or create the user as an admin (`sf hub admin create-user <login> --admin`)',
      });
    }
    const { secret, record } = issueToken(c.get('storage').tokens, { userId: user.id, kind, name: name ?? (kind === 'device' ? 'device' : 'token'), scopes });
    // the user it belongs to, so a credential issued for another user cannot pass for theirs by mistake
    return c.json({ token: secret, ...publicToken(record), user: { id: user.id, login: user.login } }, 201);
  })
  .post('/api/v1/tokens/:id/rotate', privateResponses, (c) => {
    const { token } = managedToken(c, 'rotate');
    const { secret, record } = rotateToken(c.get('storage').tokens, token.id);
    return c.json({ token: secret, ...publicToken(record) }, 201);
  })
  .delete('/api/v1/tokens/:id', (c) => {
    const { token } = managedToken(c, 'revoke');
    return c.json(publicToken(c.get('storage').tokens.revoke(token.id, new Date().toISOString())!));
  })
  .post('/api/v1/orgs', async (c) => {
    const p = requireScope(c, 'registry:write');
    const body = await readJson<{ login?: unknown }>(c, ['login']);
    return c.json(c.get('storage').accounts.createOrg(checkLogin(body.login), p.user.id), 201);
  })
  .put('/api/v1/orgs/:org/members/:login', async (c) => {
    const { accounts, org, member } = membershipTarget(c);
    const body = await readJson<{ role?: unknown }>(c, ['role']);
    // required, and exactly one of the roles: a typo or a missing body must not demote an owner
    if (typeof body.role !== 'string' || !ORG_ROLES.includes(body.role as OrgRole)) {
      throw badField('role', `one of ${ORG_ROLES.map((r) => `"${r}"`).join(', ')}`, 'send {"role": "member"} or {"role": "owner"}');
    }
    return c.json(accounts.setOrgMember(org.id, member.id, body.role as OrgRole));
  })
  .delete('/api/v1/orgs/:org/members/:login', (c) => {
    const { accounts, org, member } = membershipTarget(c);
    return c.json(accounts.setOrgMember(org.id, member.id, null));
  });

/**
 * The token a rotate or revoke route names. A personal access token manages tokens of its own user
 * whose scopes it holds itself (rotating hands out a new secret with the token's scopes, so it must
 * not be a way to more power) and always itself; an admin token manages every token. To anyone
 * else the token does not exist.
 */
function managedToken(c: Context<HubEnv>, action: 'rotate' | 'revoke'): { token: TokenRecord } {
  const p = requirePat(c, `${action} credentials`);
  const token = c.get('storage').tokens.get(c.req.param('id') ?? '');
  if (!token || (token.userId !== p.user.id && !isAdmin(p))) throw new SfError('SF_E_NOT_FOUND', 'no such token', { hint: 'list your tokens and their ids with GET /api/v1/tokens' });
  const missing = token.scopes.filter((s) => !p.scopes.has(s));
  if (token.id !== p.token.id && !isAdmin(p) && missing.length) {
    throw new SfError('SF_E_FORBIDDEN', `cannot ${action} a token with scopes this credential does not hold: ${missing.join(', ')}`, {
      hint: `use a token that holds ${missing.join(', ')} (or an admin token)`,
    });
  }
  return { token };
}

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
