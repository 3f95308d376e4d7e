import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isSfError } from '../errors/index.js';
import { HubClient } from '../hub-client/client.js';
import { download } from '../sources/download.js';
import { startServer, type TestServer } from '../../test-support/http-server.js';
import { retryAfterMs } from './fetch-retry.js';

const BODY = randomBytes(200_000);
const options = { fetch, timeoutMs: 10_000, maxRedirects: 3, maxBytes: 1_000_000 };

/** Sends the head and `bytes` of the body, then breaks the connection. */
function cutAfter(res: ServerResponse, headers: Record<string, string>, bytes: Buffer): void {
  res.writeHead(200, { 'content-length': String(BODY.length), ...headers });
  res.write(bytes, () => setTimeout(() => res.socket?.destroy(), 10));
}

describe('retries of downloads whose connection broke or whose server was overloaded', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    delete process.env.SF_FETCH_RETRIES;
  });

  it('resumes a hub download where the connection broke (Range from the bytes it has, If-Range on the strong ETag)', async () => {
    const headers = { 'accept-ranges': 'bytes', etag: '"sha256:abc"' };
    server = await startServer((req, res) => {
      const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      if (!range) return cutAfter(res, headers, BODY.subarray(0, 70_000));
      const from = Number(range[1]);
      res.writeHead(206, { ...headers, 'content-range': `bytes ${from}-${BODY.length - 1}/${BODY.length}`, 'content-length': String(BODY.length - from) });
      res.end(BODY.subarray(from));
    });
    const bytes = await new HubClient({ url: server.origin }).download('/r/a/b/1.tgz');
    assert.ok(bytes.equals(BODY), 'the resumed download is the whole body, byte for byte');
    assert.equal(server.requests.length, 2);
    const second = server.requests[1].headers;
    assert.match(String(second.range), /^bytes=\d+-$/);
    assert.ok(Number(/\d+/.exec(String(second.range))![0]) > 0, 'the resume asks only for what is missing');
    assert.equal(second['if-range'], '"sha256:abc"');
  });

  it('starts a download over when the server offers no ranges, and when it ignores the range (200)', async () => {
    const offers: Record<string, string>[] = [{}, { 'accept-ranges': 'bytes', etag: '"x"' }];
    for (const headers of offers) {
      let n = 0;
      server = await startServer((_req, res) => {
        if (n++ === 0) return cutAfter(res, headers, BODY.subarray(0, 50_000));
        res.writeHead(200, { 'content-length': String(BODY.length) });
        res.end(BODY);
      });
      assert.ok((await new HubClient({ url: server.origin }).download('/x.tgz')).equals(BODY));
      assert.equal(server.requests.length, 2);
      await server.close();
    }
    server = undefined;
  });

  it('a hub download that keeps breaking is SF_E_FETCH after two retries, not an internal error', async () => {
    server = await startServer((_req, res) => cutAfter(res, {}, BODY.subarray(0, 1_000)));
    await assert.rejects(new HubClient({ url: server.origin }).download('/x.tgz'), (e) => isSfError(e, 'SF_E_FETCH') && /stopped/.test(e.message));
    assert.equal(server.requests.length, 3);
  });

  it('asks an overloaded hub again after its Retry-After; a 500, 404 or a refused connection fail at once', async () => {
    let n = 0;
    server = await startServer((_req, res) => {
      if (n++ < 2) {
        res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'SF_E_UNAVAILABLE', message: 'busy' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    assert.deepEqual(await new HubClient({ url: server.origin }).getJson('/api/v1/x', () => undefined), { ok: true });
    assert.equal(server.requests.length, 3);
    await server.close();

    for (const status of [500, 404]) {
      server = await startServer((_req, res) => {
        res.writeHead(status);
        res.end();
      });
      await assert.rejects(new HubClient({ url: server.origin }).getJson('/api/v1/x', () => undefined));
      assert.equal(server.requests.length, 1, `HTTP ${status} is an answer`);
      await server.close();
    }
    const closed = server.origin;
    server = undefined;
    const started = Date.now();
    await assert.rejects(new HubClient({ url: closed }).getJson('/api/v1/x', () => undefined), (e) => isSfError(e, 'SF_E_FETCH'));
    assert.ok(Date.now() - started < 200, 'a refused connection is not retried');
  });

  it('does not wait out a Retry-After over 10 s, and SF_FETCH_RETRIES=0 turns retries off', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '3600' });
      res.end();
    });
    await assert.rejects(new HubClient({ url: server.origin }).download('/x.tgz'), (e) => isSfError(e) && (e.data as { status?: number }).status === 429);
    assert.equal(server.requests.length, 1);
    await server.close();
    server = await startServer((_req, res) => cutAfter(res, {}, BODY.subarray(0, 1_000)));
    process.env.SF_FETCH_RETRIES = '0';
    await assert.rejects(download(`${server.origin}/kit.tgz`, options), (e) => isSfError(e, 'SF_E_FETCH'));
    assert.equal(server.requests.length, 1);
  });

  it('downloads a source again from the start when its connection broke or the server was overloaded', async () => {
    let n = 0;
    server = await startServer((_req, res) => {
      n++;
      if (n === 1) return cutAfter(res, {}, BODY.subarray(0, 60_000));
      if (n === 2) {
        res.writeHead(502);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-length': String(BODY.length) });
      res.end(BODY);
    });
    const got = await download(`${server.origin}/kit.tgz`, options);
    assert.ok(got.bytes.equals(BODY));
    assert.equal(server.requests.length, 3);
  });

  it('refuses an SF_FETCH_RETRIES that is not a whole number, before sending anything', async () => {
    server = await startServer((_req, res) => void res.end('x'));
    process.env.SF_FETCH_RETRIES = 'lots';
    await assert.rejects(download(`${server.origin}/kit.tgz`, options), (e) => isSfError(e, 'SF_E_USAGE') && /SF_FETCH_RETRIES/.test(e.message));
    assert.equal(server.requests.length, 0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(retryAfterMs('2'), 2000);
    assert.equal(retryAfterMs(new Date(61_000).toUTCString(), 1_000), 60_000);
    assert.equal(retryAfterMs('soon'), undefined);
    assert.equal(retryAfterMs(null), undefined);
  });
});
