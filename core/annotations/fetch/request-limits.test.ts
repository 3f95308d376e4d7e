import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSfError } from '../../errors/index.js';
import { fixturesDir } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';
import { fetchIssueThread } from './issue-thread.js';
import { MAX_RESPONSE_BYTES, REQUEST_TIMEOUT_MS } from './request.js';
import { redactSecrets } from './redact.js';

const worked = JSON.parse(readFileSync(join(fixturesDir, 'annotations', 'threads', 'worked-example.github.json'), 'utf8')) as unknown[];
const noSleep = async () => undefined;

/** A raw node:http server on 127.0.0.1 whose handler misbehaves; close() drops open connections. */
async function rawServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; sent: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const server = createServer((req, res) => {
    const write = res.write.bind(res);
    res.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      sent += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      return write(chunk, ...rest);
    }) as typeof res.write;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Streams JSON-looking bytes for as long as the client reads them (at most `max`). */
function endless(max: number) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    const pump = () => {
      while (written < max) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.write('[');
    res.on('close', () => (written = max));
    pump();
  };
}

describe('fetchIssueThread limits (node:http on 127.0.0.1)', () => {
  let raw: Awaited<ReturnType<typeof rawServer>> | undefined;
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await raw?.close();
    await server?.close();
    raw = undefined;
    server = undefined;
  });
  const opts = (api: string) => ({ api, repo: 'acme/payments', issue: 128, sleep: noSleep, labels: false });

  it('reads at most 32 MiB of a response and fails with SF_E_LIMIT (defect 5)', async () => {
    assert.equal(MAX_RESPONSE_BYTES, 32 * 1024 * 1024);
    raw = await rawServer(endless(200 * 1024 * 1024));
    await assert.rejects(fetchIssueThread(opts(raw.url)), (e) => isSfError(e, 'SF_E_LIMIT') && /returned more than 32 MiB/.test(e.message) && /--api/.test(e.hint ?? ''));
    // it stopped reading: the server got to send little beyond the cap (socket buffers), not 200 MiB
    assert.ok(raw.sent() < MAX_RESPONSE_BYTES + 16 * 1024 * 1024, String(raw.sent()));
  });

  it('applies a lower cap from the options, and refuses a declared content-length over it at once', async () => {
    raw = await rawServer(endless(8 * 1024 * 1024));
    await assert.rejects(fetchIssueThread({ ...opts(raw.url), maxResponseBytes: 100_000 }), (e) => isSfError(e, 'SF_E_LIMIT') && /more than 100000 bytes/.test(e.message));
    await raw.close();
    raw = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(5 * 1024 ** 3) });
      res.write('[');
    });
    await assert.rejects(fetchIssueThread({ ...opts(raw.url), timeoutMs: 5000 }), (e) => isSfError(e, 'SF_E_LIMIT'));
  });

  it('gives up on a server that trickles its body, or never answers, at the request deadline (defect 6)', async () => {
    assert.equal(REQUEST_TIMEOUT_MS, 60_000);
    raw = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    await assert.rejects(fetchIssueThread({ ...opts(raw.url), timeoutMs: 300 }), (e) => isSfError(e, 'SF_E_FETCH') && /did not complete within 0\.3 s/.test(e.message) && /headers and the whole body/.test(e.hint ?? ''));
    assert.ok(Date.now() - started < 5000);
    await raw.close();
    raw = await rawServer(() => undefined); // headers never come
    await assert.rejects(fetchIssueThread({ ...opts(raw.url), timeoutMs: 300 }), (e) => isSfError(e, 'SF_E_FETCH') && /did not complete within 0\.3 s/.test(e.message));
  });

  it('never prints a token or Authorization value the server echoes (defect 7)', async () => {
    raw = await rawServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `Bad credentials: token sekrit-token-123 (you sent ${req.headers.authorization})` }));
    });
    await assert.rejects(fetchIssueThread({ ...opts(raw.url), token: 'sekrit-token-123' }), (e) => {
      assert.ok(isSfError(e, 'SF_E_AUTH'));
      assert.ok(!JSON.stringify({ m: e.message, h: e.hint, d: e.toJSON() }).includes('sekrit-token-123'), e.message);
      assert.match(e.message, /Bad credentials: token \[redacted\]/);
      return true;
    });
    assert.equal(redactSecrets('{"Authorization": "Bearer abc.def-123", "x": 1}'), '{"Authorization": "[redacted]", "x": 1}');
    assert.equal(redactSecrets('got ghp_0123456789abcdefghijABCDEFGHIJ and token validation failed'), 'got [redacted] and token validation failed');
  });

  it('--max-pages bounds the pages read, and its hint names the option and value (defect 8)', async () => {
    server = await startThreadServer({ threads: { 'acme/payments#128': worked } });
    await assert.rejects(fetchIssueThread({ ...opts(server.url), perPage: 1, maxPages: 2 }), (e) => isSfError(e, 'SF_E_LIMIT') && /--max-pages \(now 2\)/.test(e.hint ?? ''));
    assert.equal((await fetchIssueThread({ ...opts(server.url), perPage: 1, maxPages: 3 })).pages, 3);
    await assert.rejects(fetchIssueThread({ ...opts(server.url), maxPages: 0 }), (e) => isSfError(e, 'SF_E_USAGE') && /--max-pages/.test(e.message));
  });

  it('takes a page with 300,000 entries without overflowing the stack (defect 4)', async () => {
    raw = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`[${'0,'.repeat(299_999)}0]`);
    });
    assert.equal((await fetchIssueThread(opts(raw.url))).comments.length, 300_000);
  });

  it('reads "labels": null on the issue as no labels', async () => {
    server = await startThreadServer({
      threads: { 'acme/payments#128': worked },
      intercept: (req, res) => {
        if (req.url !== '/repos/acme/payments/issues/128') return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"number": 128, "labels": null}');
        return true;
      },
    });
    assert.deepEqual((await fetchIssueThread({ ...opts(server.url), labels: true })).labels, []);
  });
});
