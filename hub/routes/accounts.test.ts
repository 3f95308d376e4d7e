import assert from 'node:assert/strict';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';

describe('hub accounts and tokens', () => {
  let hub: HubFixture;
  beforeEach(async () => (hub = await hubFixture()));
  afterEach(() => hub.cleanup());

  const json = (body: unknown, headers: Record<string, string>) => ({
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers },
  });

  it('serves /healthz without credentials', async () => {
    const res = await hub.app.request('/healthz');
    assert.equal(res.status, 200);
    assert.equal((await res.json()).ok, true);
  });

  it('stores tokens only as hashes', async () => {
    const alice = hub.user('alice');
    const stored = hub.storage.tokens.listForUser(alice.id);
    assert.equal(stored.length, 1);
    assert.ok(!JSON.stringify(stored).includes(alice.secret));
    assert.match(stored[0].secretHash, /^[0-9a-f]{64}$/);
  });

  it('rejects a wrong or malformed bearer with 401 rather than treating it as anonymous', async () => {
    for (const authorization of ['Bearer sfp_wrongwrongwrongwrongwrong', 'Basic abc', 'Bearer']) {
      const res = await hub.app.request('/api/v1/user', { headers: { authorization } });
      assert.equal(res.status, 401, authorization);
      assert.equal((await res.json()).error.code, 'SF_E_AUTH');
    }
  });

  it('revocation takes effect on the very next request', async () => {
    const alice = hub.user('alice');
    const created = await hub.app.request('/api/v1/tokens', json({ name: 'ci', scopes: ['registry:read'] }, alice.auth));
    assert.equal(created.status, 201);
    const { token, id } = await created.json();
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await hub.app.request('/api/v1/user', { headers: auth })).status, 200);
    const del = await hub.app.request(`/api/v1/tokens/${id}`, { method: 'DELETE', headers: alice.auth });
    assert.equal(del.status, 200);
    assert.equal((await hub.app.request('/api/v1/user', { headers: auth })).status, 401);
  });

  it('rotation revokes the old secret and returns a working new one', async () => {
    const alice = hub.user('alice');
    const tokenId = hub.storage.tokens.listForUser(alice.id)[0].id;
    const res = await hub.app.request(`/api/v1/tokens/${tokenId}/rotate`, { method: 'POST', headers: alice.auth });
    assert.equal(res.status, 201);
    const { token, rotatedFrom } = await res.json();
    assert.equal(rotatedFrom, tokenId);
    assert.equal((await hub.app.request('/api/v1/user', { headers: alice.auth })).status, 401);
    assert.equal((await hub.app.request('/api/v1/user', { headers: { authorization: `Bearer ${token}` } })).status, 200);
  });

  it('a token cannot grant scopes it does not hold, and device credentials are telemetry-only', async () => {
    const bob = hub.user('bob', ['registry:read']);
    const res = await hub.app.request('/api/v1/tokens', json({ scopes: ['registry:write'] }, bob.auth));
    assert.equal(res.status, 403);
    const dev = await hub.app.request('/api/v1/tokens', json({ kind: 'device', scopes: ['registry:read'] }, hub.user('carol', ['registry:read', 'telemetry:write']).auth));
    assert.equal(dev.status, 400);
    const ok = await hub.app.request('/api/v1/tokens', json({ kind: 'device' }, hub.user('dave', ['telemetry:write', 'registry:read']).auth));
    assert.equal(ok.status, 201);
    const body = await ok.json();
    assert.deepEqual(body.scopes, ['telemetry:write']);
    assert.match(body.token, /^sfd_/);
  });

  it('only admins create users; logins share one namespace with organizations', async () => {
    const alice = hub.user('alice');
    assert.equal((await hub.app.request('/api/v1/users', json({ login: 'eve' }, alice.auth))).status, 403);
    const root = hub.user('root', ['admin'], { admin: true });
    assert.equal((await hub.app.request('/api/v1/users', json({ login: 'eve' }, root.auth))).status, 201);
    assert.equal((await hub.app.request('/api/v1/orgs', json({ login: 'eve' }, alice.auth))).status, 409);
    const org = await hub.app.request('/api/v1/orgs', json({ login: 'acme' }, alice.auth));
    assert.equal(org.status, 201);
    const add = await hub.app.request('/api/v1/orgs/acme/members/eve', { method: 'PUT', body: '{"role":"member"}', headers: alice.auth });
    assert.equal(add.status, 200);
    assert.equal((await add.json()).members.length, 2);
  });

  it('refuses token and user fields of the wrong type with a 400 naming the field, never coercing them', async () => {
    const root = hub.user('root', ['admin', 'registry:read'], { admin: true });
    hub.user('alice');
    const refused: [string, object, string][] = [
      ['/api/v1/tokens', { userLogin: ['alice'], name: 'for-alice', scopes: ['admin', 'registry:read'] }, 'userLogin'],
      ['/api/v1/tokens', { userLogin: 7 }, 'userLogin'],
      ['/api/v1/tokens', { userLogin: null }, 'userLogin'],
      ['/api/v1/tokens', { kind: 'Device' }, 'kind'],
      ['/api/v1/tokens', { kind: null }, 'kind'],
      ['/api/v1/tokens', { scopes: null }, 'scopes'],
      ['/api/v1/tokens', { scopes: 'registry:read' }, 'scopes'],
      ['/api/v1/tokens', { scopes: ['registry:read', 5] }, 'scopes'],
      ['/api/v1/tokens', { name: 'x'.repeat(101) }, 'name'],
      ['/api/v1/tokens', { name: 42 }, 'name'],
      ['/api/v1/users', { login: 'carol', admin: 'true' }, 'admin'],
    ];
    const before = hub.storage.tokens.listForUser(root.id).length;
    for (const [path, body, field] of refused) {
      const res = await hub.app.request(path, json(body, root.auth));
      assert.equal(res.status, 400, JSON.stringify(body));
      const { error } = await res.json();
      assert.equal(error.code, 'SF_E_USAGE');
      assert.equal(error.location?.pointer, field, JSON.stringify(body));
      assert.match(error.message, new RegExp(`^${field} must be`));
    }
    assert.equal(hub.storage.tokens.listForUser(root.id).length, before, 'no token was issued to the caller');
    assert.equal(hub.storage.accounts.findOwner('carol'), undefined);
    // the well-typed request issues alice's token, and the answer says whose it is
    const ok = await hub.app.request('/api/v1/tokens', json({ userLogin: 'alice', name: 'for-alice', scopes: ['registry:read'] }, root.auth));
    assert.equal(ok.status, 201);
    const issued = await ok.json();
    assert.equal(issued.user.login, 'alice');
    const who = await (await hub.app.request('/api/v1/user', { headers: { authorization: `Bearer ${issued.token}` } })).json();
    assert.equal(who.login, 'alice');
  });

  it('an organization role must be "owner" or "member": a typo or a missing body is a 400, never a demotion', async () => {
    const alice = hub.user('alice');
    hub.user('bob');
    assert.equal((await hub.app.request('/api/v1/orgs', json({ login: 'acme' }, alice.auth))).status, 201);
    const setRole = (init: RequestInit) => hub.app.request('/api/v1/orgs/acme/members/bob', { method: 'PUT', ...init, headers: { 'content-type': 'application/json', ...alice.auth } });
    assert.equal((await setRole({ body: '{"role":"owner"}' })).status, 200);
    for (const init of [{ body: '{"role":"Owner"}' }, { body: '{"role":"admin"}' }, { body: '{"role":null}' }, { body: '{}' }, {}]) {
      const res = await setRole(init);
      assert.equal(res.status, 400, JSON.stringify(init));
      const { error } = await res.json();
      assert.equal(error.location?.pointer, 'role');
      assert.match(error.message, /role must be one of "owner", "member"/);
    }
    const org = hub.storage.accounts.findOwner('acme')!;
    const bob = hub.storage.accounts.findOwner('bob')!;
    assert.equal(hub.storage.accounts.getOrg(org.id)!.members.find((m) => m.userId === bob.id)?.role, 'owner', 'bob is still an owner');
    assert.equal((await setRole({ body: '{"role":"member"}' })).status, 200);
    assert.equal(hub.storage.accounts.getOrg(org.id)!.members.find((m) => m.userId === bob.id)?.role, 'member');
  });

  it('answers that carry a token secret are not to be cached; an over-limit JSON body is a 413 naming its limit', async () => {
    const root = hub.user('root', ['admin', 'registry:read'], { admin: true });
    const created = await hub.app.request('/api/v1/tokens', json({ name: 'ci', scopes: ['registry:read'] }, root.auth));
    assert.equal(created.status, 201);
    const { id } = await created.json();
    const rotated = await hub.app.request(`/api/v1/tokens/${id}/rotate`, { method: 'POST', headers: root.auth });
    assert.equal(rotated.status, 201);
    const user = await hub.app.request('/api/v1/users', json({ login: 'carol' }, root.auth));
    assert.equal(user.status, 201);
    for (const res of [created, rotated, user]) assert.equal(res.headers.get('cache-control'), 'private, no-store', res.url);

    const big = await hub.app.request('/api/v1/tokens', json({ name: 'x'.repeat(70 * 1024) }, root.auth));
    assert.equal(big.status, 413);
    const { error } = await big.json();
    assert.equal(error.code, 'SF_E_LIMIT');
    assert.deepEqual(error.data, { limit: 'maxJsonBytes', max: 65536 });
  });
});
