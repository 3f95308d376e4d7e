import assert from 'node:assert/strict';
import { request } from 'node:http';
import { browserRequestRefusal } from './local-only.js';
import { startReceiver, type Receiver } from './receiver.js';

describe('observer receiver: loopback only, never a web page', () => {
  it('refuses a foreign Host (DNS rebinding) or Origin (cross-site), and accepts what local exporters send', () => {
    const refused = (host?: string, origin?: string) => browserRequestRefusal({ host, origin }, '127.0.0.1')?.code;
    for (const host of [undefined, '127.0.0.1:14318', 'localhost:14318', 'LOCALHOST', '[::1]:14318', '127.0.0.1']) assert.equal(refused(host), undefined, String(host));
    for (const host of ['evil.example:14318', 'evil.example', '127.0.0.1.evil.example:14318', '[::2]:14318', '0.0.0.0:14318']) assert.equal(refused(host), 'SF_E_FORBIDDEN', host);
    for (const origin of ['http://127.0.0.1:14318', 'http://localhost:3000', 'http://[::1]:8080']) assert.equal(refused('127.0.0.1:14318', origin), undefined, origin);
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example', 'not a url']) assert.equal(refused('127.0.0.1:14318', origin), 'SF_E_FORBIDDEN', origin);
    assert.equal(browserRequestRefusal({ host: 'observer.internal:14318' }, 'observer.internal'), undefined, 'the name it was bound to');
  });

  describe('over HTTP', () => {
    let receiver: Receiver;
    const seen: unknown[] = [];
    before(async () => {
      receiver = await startReceiver(0, {
        otlp: async (req) => void seen.push(req),
        pluginEvents: async (items) => {
          seen.push(...items);
          return { accepted: items.length, rejected: 0 };
        },
        messages: async (items) => items,
        health: () => ({ ok: true }),
      });
    });
    after(() => receiver.close());
    beforeEach(() => void seen.splice(0));

    const post = (path: string, headers: Record<string, string>, body: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: receiver.port, path, method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const event = JSON.stringify({ kind: 'forged' });
    const json = { 'content-type': 'application/json' };

    it('answers 403 to a cross-site POST and to a rebound Host, and hands nothing on', async () => {
      const crossSite = await post('/forge/v1/events', { ...json, origin: 'https://evil.example' }, event);
      assert.equal(crossSite.status, 403);
      assert.match(JSON.parse(crossSite.body).error, /web pages \(Origin "https:\/\/evil\.example"\) are refused/);
      assert.equal((await post('/v1/logs', { ...json, origin: 'https://evil.example' }, '{}')).status, 403);
      const rebound = await post('/forge/v1/messages', { ...json, host: `evil.example:${receiver.port}` }, '[]');
      assert.equal(rebound.status, 403);
      assert.equal(JSON.parse(rebound.body).code, 'SF_E_FORBIDDEN');
      assert.deepEqual(seen, []);
    });

    it('takes the Forge routes only as application/json (a page\'s text/plain POST needs no preflight)', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
        const r = await post('/forge/v1/events', { 'content-type': type }, event);
        assert.equal(r.status, 415, type);
      }
      assert.deepEqual(seen, []);
      const ok = await post('/forge/v1/events', { 'content-type': 'application/json; charset=utf-8' }, event);
      assert.equal(ok.status, 200, ok.body);
      assert.deepEqual(JSON.parse(ok.body), { accepted: 1, rejected: 0 });
      assert.deepEqual(seen, [{ kind: 'forged' }]);
    });
  });
});
