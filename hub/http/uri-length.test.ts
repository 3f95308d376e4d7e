import assert from 'node:assert/strict';
import { tempDir } from '../../test-support/index.js';
import { rawClient } from '../../test-support/raw-http.js';
import { startHub, type RunningHub } from '../serve.js';
import { hubFixture } from '../test-support/hub-fixture.js';

/** The documented limit on the request target (path + query), docs/hub-registry.md. */
const MAX_URL_BYTES = 8 * 1024;

/** A GET of `target` with `extra` header lines over a raw socket: the status code and the body. */
async function rawGet(port: number, target: string, extra = ''): Promise<{ status: number; body: string; head: string }> {
  const { answer } = await rawClient(port, (s) => s.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`));
  const [head, body = ''] = answer.split('\r\n\r\n', 2);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body, head };
}

/** `/healthz?q=aaa…`: a request target of exactly `bytes` bytes. */
const targetOf = (bytes: number) => `/healthz?q=${'a'.repeat(bytes - '/healthz?q='.length)}`;

describe('hub: over-long URLs are 414, over-large headers stay 431', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let hub: RunningHub;
  before(async () => {
    tmp = await tempDir('sf-hub-uri-');
    hub = await startHub({ dataDir: tmp.path });
  });
  after(async () => {
    await hub.close();
    await tmp.cleanup();
  });

  it('measures the target as sent: dot segments the URL parser removes do not hide its length', async () => {
    for (const target of [`/healthz${'/.'.repeat(6_000)}`, `${'/y/..'.repeat(3_000)}/healthz`]) {
      assert.equal((await rawGet(hub.port, target)).status, 414, `${target.length}-byte target`);
    }
  });

  it('serves a URL at the limit', async () => {
    assert.equal((await rawGet(hub.port, targetOf(MAX_URL_BYTES))).status, 200);
  });

  it('answers 414 with the JSON error body (SF_E_LIMIT, data.limit maxUrlBytes) one byte past the limit', async () => {
    const res = await rawGet(hub.port, targetOf(MAX_URL_BYTES + 1));
    assert.equal(res.status, 414, res.head);
    const { error } = JSON.parse(res.body);
    assert.equal(error.code, 'SF_E_LIMIT');
    assert.equal(error.data.limit, 'maxUrlBytes');
    assert.equal(error.data.max, MAX_URL_BYTES);
    assert.match(error.message, /8193 bytes/);
    assert.ok(error.hint);
  });

  it('answers 414 for a URL past Node\'s default 16 KiB header limit, which used to be a 431', async () => {
    assert.equal((await rawGet(hub.port, targetOf(20 * 1024))).status, 414);
  });

  it('answers 414 before routing and authentication (OTLP, authenticated API)', async () => {
    const bad = 'Authorization: Bearer sf_pat_not_a_token\r\n';
    assert.equal((await rawGet(hub.port, targetOf(MAX_URL_BYTES + 1).replace('/healthz', '/api/v1/skits'), bad)).status, 414);
    const { answer } = await rawClient(hub.port, (s) =>
      s.write(`POST /v1/logs?${'a'.repeat(MAX_URL_BYTES)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`),
    );
    assert.match(answer, /^HTTP\/1\.1 414/);
  });

  it('still answers 431 for really large headers, with a short URL or a long one', async () => {
    assert.equal((await rawGet(hub.port, '/healthz', `X-Big: ${'b'.repeat(40 * 1024)}\r\n`)).status, 431);
    assert.equal((await rawGet(hub.port, targetOf(MAX_URL_BYTES + 1), `X-Big: ${'b'.repeat(40 * 1024)}\r\n`)).status, 431);
  });

  it('the in-process app answers 414 too (the check is the app\'s, not only the server\'s)', async () => {
    const fixture = await hubFixture();
    try {
      const res = await fixture.app.request(targetOf(MAX_URL_BYTES + 1));
      assert.equal(res.status, 414);
      assert.equal((await res.json()).error.code, 'SF_E_LIMIT');
      assert.equal((await fixture.app.request(targetOf(MAX_URL_BYTES))).status, 200);
    } finally {
      await fixture.cleanup();
    }
  });
});
