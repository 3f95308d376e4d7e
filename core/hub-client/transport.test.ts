import assert from 'node:assert/strict';
import { isSfError } from '../errors/index.js';
import { HubClient } from './client.js';
import { aBoolean, objectWith } from './shape.js';
import { assertCredentialTransport } from './transport.js';

describe('hub credentials never travel over plain http beyond this machine', () => {
  const refused = (url: string, env: NodeJS.ProcessEnv = {}) => {
    try {
      assertCredentialTransport(url, env);
      return false;
    } catch (e) {
      assert.ok(isSfError(e, 'SF_E_USAGE'), String(e));
      return true;
    }
  };

  it('allows https anywhere and http on loopback; refuses other http unless SF_HUB_ALLOW_HTTP=1', () => {
    for (const url of ['https://hub.example.com', 'http://127.0.0.1:7357', 'http://127.1.2.3', 'http://localhost:7357', 'http://[::1]:7357', 'http://LOCALHOST']) assert.equal(refused(url), false, url);
    for (const url of ['http://hub.example.com', 'http://10.0.0.5:7357', 'http://localhost.example.com', 'http://127.0.0.1.nip.io']) assert.equal(refused(url), true, url);
    assert.equal(refused('http://hub.example.com', { SF_HUB_ALLOW_HTTP: '1' }), false);
    assert.equal(refused('http://hub.example.com', { SF_HUB_ALLOW_HTTP: 'yes' }), true, 'only 1 counts');
  });

  it('HubClient refuses before any request leaves, and sends anonymous requests as before', async () => {
    const sent: string[] = [];
    const record = (async (url: string | URL | Request) => {
      sent.push(String(url));
      return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const withToken = new HubClient({ url: 'http://hub.example.com', token: 'sfp_secret' }, { fetch: record, env: {} });
    await assert.rejects(withToken.getJson('/api/v1/user', objectWith({})), (e) => isSfError(e, 'SF_E_USAGE') && /plain http to hub\.example\.com/.test(e.message) && !e.message.includes('sfp_secret'));
    assert.deepEqual(sent, []);
    const anonymous = new HubClient({ url: 'http://hub.example.com' }, { fetch: record, env: {} });
    assert.deepEqual(await anonymous.getJson('/api/v1/skits', objectWith({ ok: aBoolean })), { ok: true });
    assert.deepEqual(sent, ['http://hub.example.com/api/v1/skits']);
  });
});
