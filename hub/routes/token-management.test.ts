import assert from 'node:assert/strict';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';

/** Who may create, rotate and revoke credentials (a rotation must never be a way to more power). */
describe('hub token management: no way to more power than the credential holds', () => {
  let hub: HubFixture;
  beforeEach(async () => (hub = await hubFixture()));
  afterEach(() => hub.cleanup());

  const post = (path: string, body: unknown, auth: Record<string, string>) =>
    hub.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...auth } });
  const tokenId = (userId: string, scopes: string[]) => hub.storage.tokens.listForUser(userId).find((t) => JSON.stringify(t.scopes) === JSON.stringify(scopes))!.id;

  it('a read-only token cannot rotate (or revoke) a stronger token of its user; it can rotate and revoke itself', async () => {
    const root = hub.user('root', ['admin', 'registry:read', 'registry:write'], { admin: true });
    const ro = hub.user('root', ['registry:read'], { admin: true });
    const strong = tokenId(root.id, ['admin', 'registry:read', 'registry:write']);
    const rotate = await hub.app.request(`/api/v1/tokens/${strong}/rotate`, { method: 'POST', headers: ro.auth });
    assert.equal(rotate.status, 403);
    assert.match((await rotate.json()).error.message, /admin, registry:write/);
    assert.equal((await hub.app.request(`/api/v1/tokens/${strong}`, { method: 'DELETE', headers: ro.auth })).status, 403);
    assert.equal((await hub.app.request('/api/v1/user', { headers: root.auth })).status, 200, 'the strong token still works');
    const own = tokenId(root.id, ['registry:read']);
    const self = await hub.app.request(`/api/v1/tokens/${own}/rotate`, { method: 'POST', headers: ro.auth });
    assert.equal(self.status, 201);
    assert.deepEqual((await self.json()).scopes, ['registry:read']);
  });

  it('a token without scopes cannot revoke its user\'s other tokens', async () => {
    const alice = hub.user('alice');
    const none = hub.user('alice', []);
    const other = tokenId(alice.id, ['registry:read', 'registry:write']);
    assert.equal((await hub.app.request(`/api/v1/tokens/${other}`, { method: 'DELETE', headers: none.auth })).status, 403);
    assert.equal((await hub.app.request('/api/v1/user', { headers: alice.auth })).status, 200);
    assert.equal((await hub.app.request(`/api/v1/tokens/${tokenId(alice.id, [])}`, { method: 'DELETE', headers: none.auth })).status, 200, 'revoking itself is fine');
  });

  it('the admin scope does nothing for a user who is not an admin, and cannot be granted to one', async () => {
    const root = hub.user('root', ['admin'], { admin: true });
    hub.user('bob');
    const refused = await post('/api/v1/tokens', { userLogin: 'bob', scopes: ['admin'] }, root.auth);
    assert.equal(refused.status, 400);
    assert.match((await refused.json()).error.message, /bob is not an admin/);
    // a token that holds the scope anyway (minted before this rule, or the user lost admin) has no effect
    const bobAdmin = hub.user('bob', ['admin', 'registry:read']);
    assert.equal((await post('/api/v1/users', { login: 'mallory', admin: true }, bobAdmin.auth)).status, 403);
    assert.equal((await post('/api/v1/tokens', { userLogin: 'root', scopes: ['registry:read'] }, bobAdmin.auth)).status, 403);
    assert.equal((await post('/api/v1/users', { login: 'eve' }, root.auth)).status, 201);
  });

  it('a device credential is refused with 403 on credential routes (it is valid, so not 401)', async () => {
    const alice = hub.user('alice');
    const device = hub.user('alice', ['telemetry:write'], { kind: 'device' });
    for (const res of [
      await post('/api/v1/tokens', {}, device.auth),
      await hub.app.request(`/api/v1/tokens/${tokenId(alice.id, ['registry:read', 'registry:write'])}`, { method: 'DELETE', headers: device.auth }),
      await hub.app.request(`/api/v1/tokens/${tokenId(alice.id, ['registry:read', 'registry:write'])}/rotate`, { method: 'POST', headers: device.auth }),
    ]) {
      assert.equal(res.status, 403);
      assert.equal(res.headers.get('www-authenticate'), null);
    }
  });

  it('a JSON body is capped while it arrives (a 1 MB body is a 413 after 64 KiB)', async () => {
    const alice = hub.user('alice');
    let sent = 0;
    const chunk = new Uint8Array(16 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1024 * 1024) return controller.close();
        controller.enqueue(chunk);
        sent += chunk.length;
      },
    });
    const res = await hub.app.request('/api/v1/tokens', { method: 'POST', body, headers: { 'content-type': 'application/json', ...alice.auth }, duplex: 'half' } as RequestInit);
    assert.equal(res.status, 413);
    assert.ok(sent < 1024 * 1024, `read ${sent} bytes`);
    const orgs = await post('/api/v1/orgs', { login: 'x' }, alice.auth);
    assert.equal(orgs.status, 201);
  });
});
