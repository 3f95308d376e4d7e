import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { isSfError } from '../../errors/index.js';
import { fixturesDir } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';
import { parseThread, normalizeComments } from '../thread.js';
import { fetchIssueThread } from './issue-thread.js';
import { nextLink, waitForRefusal } from './rate-limit.js';

const fixture = (p: string) => JSON.parse(readFileSync(join(fixturesDir, 'annotations', p), 'utf8')) as unknown[];
const worked = fixture('threads/worked-example.github.json');
const gitea = fixture('threads/lifecycle.gitea.json');

describe('fetchIssueThread (GitHub-compatible REST on 127.0.0.1)', () => {
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  beforeEach(() => (sleeps.length = 0));

  it('follows Link rel="next" across pages and reads the labels, sending the token', async () => {
    server = await startThreadServer({ threads: { 'acme/payments#128': worked, 'acme/reports#140': gitea }, labels: { 'acme/payments#128': fixture('labels/worked-example.github.json') }, token: 's3cret' });
    const t = await fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, token: 's3cret', perPage: 1, sleep });
    assert.equal(t.pages, 3);
    assert.deepEqual(t.comments, worked);
    assert.deepEqual(t.labels, ['bug', 'workflow:merged']);
    assert.deepEqual(server.requests.map((r) => r.url), [
      '/repos/acme/payments/issues/128/comments?per_page=1',
      '/repos/acme/payments/issues/128/comments?per_page=1&page=2',
      '/repos/acme/payments/issues/128/comments?per_page=1&page=3',
      '/repos/acme/payments/issues/128',
    ]);
    assert.ok(server.requests.every((r) => r.authorization === 'token s3cret'));
    const big = await fetchIssueThread({ api: server.url + '/', repo: 'acme/reports', issue: 140, token: 's3cret', perPage: 4, sleep });
    assert.deepEqual([big.pages, big.comments.length], [3, 9]);
    assert.equal(parseThread(normalizeComments(big.comments).comments).annotations.length, 11);
    assert.deepEqual(sleeps, []);
  });

  it('waits for retry-after and for x-ratelimit-reset, then retries', async () => {
    let refused = 0;
    server = await startThreadServer({
      threads: { 'acme/payments#128': worked },
      intercept: (req, res) => {
        if (req.url?.includes('page=2') && refused === 0) {
          refused++;
          res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' });
          res.end('{"message":"You have exceeded a secondary rate limit"}');
          return true;
        }
        if (req.url?.includes('page=3') && refused === 1) {
          refused++;
          res.writeHead(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30), 'content-type': 'application/json' });
          res.end('{"message":"API rate limit exceeded"}');
          return true;
        }
        return false;
      },
    });
    const t = await fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, perPage: 1, sleep, labels: false });
    assert.deepEqual(t.comments, worked);
    assert.equal(sleeps[0], 3000);
    // about 30 s (the reset epoch has whole seconds); the sleep is recorded, not taken
    assert.ok(sleeps[1] > 20_000 && sleeps[1] <= 30_000, String(sleeps[1]));
    assert.deepEqual(t.waits.map((w) => w.ms), sleeps);
  });

  it('paces the next request when the quota reaches zero', async () => {
    server = await startThreadServer({
      threads: { 'acme/payments#128': worked },
      intercept: (req, res) => {
        if (req.url === '/repos/acme/payments/issues/128/comments?per_page=2') {
          res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 20), link: `<${server!.url}/repos/acme/payments/issues/128/comments?per_page=2&page=2>; rel="next"` });
          res.end(JSON.stringify(worked.slice(0, 2)));
          return true;
        }
        return false;
      },
    });
    const t = await fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, perPage: 2, sleep, labels: false });
    assert.equal(t.comments.length, 3);
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0] > 10_000 && sleeps[0] <= 20_000, String(sleeps[0]));
  });

  it('gives up with a clear error when the wait exceeds the bound, without waiting', async () => {
    server = await startThreadServer({
      threads: {},
      intercept: (_req, res) => {
        res.writeHead(429, { 'retry-after': '3600' });
        res.end();
        return true;
      },
    });
    await assert.rejects(fetchIssueThread({ api: server.url, repo: 'a/b', issue: 1, sleep, maxWaitMs: 10_000 }), (e) => isSfError(e, 'SF_E_RATE_LIMIT') && /3600 s/.test(e.message) && /--max-wait/.test(e.hint ?? ''));
    assert.deepEqual(sleeps, []);
  });

  it('a server error whose back-off passes --max-wait is SF_E_UNAVAILABLE, not a rate limit (cliux D9)', async () => {
    server = await startThreadServer({
      threads: {},
      intercept: (req, res) => {
        // a plain 500, and a 503 asking for an hour
        res.writeHead(req.url?.includes('/issues/2/') ? 503 : 500, req.url?.includes('/issues/2/') ? { 'retry-after': '3600' } : {});
        res.end('{"message":"boom"}');
        return true;
      },
    });
    for (const issue of [1, 2]) {
      await assert.rejects(
        fetchIssueThread({ api: server.url, repo: 'a/b', issue, sleep, maxWaitMs: 0 }),
        (e) => isSfError(e, 'SF_E_UNAVAILABLE') && new RegExp(`failed with HTTP ${issue === 1 ? 500 : 503}: boom`).test(e.message) && /retry later/.test(e.hint ?? ''),
      );
    }
    assert.deepEqual(sleeps, []);
  });

  it('maps 401 and 404 to auth and not-found errors that never contain the token', async () => {
    server = await startThreadServer({ threads: { 'acme/payments#128': worked }, token: 'right' });
    await assert.rejects(fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, token: 'wrong-token-value', sleep }), (e) => isSfError(e, 'SF_E_AUTH') && !JSON.stringify(e.toJSON()).includes('wrong-token-value'));
    await assert.rejects(fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 999, token: 'right', sleep }), (e) => isSfError(e, 'SF_E_NOT_FOUND') && /Not Found/.test(e.message));
  });

  it('never follows a next page or redirect to another host', async () => {
    server = await startThreadServer({
      threads: { 'acme/payments#128': worked },
      intercept: (req, res) => {
        if (req.url?.startsWith('/repos/acme/payments/issues/128/comments')) {
          res.writeHead(200, { 'content-type': 'application/json', link: '<http://localhost:1/steal?page=2>; rel="next"' });
          res.end('[]');
          return true;
        }
        res.writeHead(302, { location: 'http://localhost:1/elsewhere' });
        res.end();
        return true;
      },
    });
    await assert.rejects(fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, token: 't', sleep }), (e) => isSfError(e, 'SF_E_FETCH') && /another host/.test(e.message));
    await assert.rejects(fetchIssueThread({ api: server.url, repo: 'acme/other', issue: 1, token: 't', sleep }), (e) => isSfError(e, 'SF_E_FETCH') && /redirects to another host/.test(e.message));
    assert.equal(server.requests.length, 2);
  });

  it('refuses to send a token over plain http to a non-loopback host, and bad arguments', async () => {
    await assert.rejects(fetchIssueThread({ api: 'http://git.example.com/api/v1', repo: 'a/b', issue: 1, token: 't' }), (e) => isSfError(e, 'SF_E_USAGE') && /plain http/.test(e.message));
    await assert.rejects(fetchIssueThread({ api: 'https://x', repo: 'nope', issue: 1 }), (e) => isSfError(e, 'SF_E_USAGE'));
    await assert.rejects(fetchIssueThread({ api: 'https://x', repo: 'a/b', issue: 0 }), (e) => isSfError(e, 'SF_E_USAGE'));
  });
});

describe('rate-limit header rules', () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it('reads retry-after seconds and dates, reset epochs, and the 429 fallback', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.deepEqual(waitForRefusal(429, headers({ 'retry-after': '7' }), now)?.ms, 7000);
    assert.equal(waitForRefusal(503, headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)?.ms, 30_000);
    assert.equal(waitForRefusal(403, headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 42) }), now)?.ms, 42_000);
    assert.equal(waitForRefusal(429, headers({}), now)?.ms, 60_000);
    assert.equal(waitForRefusal(403, headers({ 'x-ratelimit-remaining': '12' }), now), null);
  });
  it('finds rel="next" among several links', () => {
    assert.equal(nextLink('<https://a/x?page=3>; rel="last", <https://a/x?page=2>; rel="next"', 'https://a/'), 'https://a/x?page=2');
    assert.equal(nextLink('</x?page=2>; rel=next', 'https://a/y'), 'https://a/x?page=2');
    assert.equal(nextLink('<https://a/x?page=1>; rel="prev"', 'https://a/'), null);
  });
});

describe('a GitHub secondary rate limit answered with 403 and a message only (D3)', () => {
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const SECONDARY = '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}';
  const refuseFirst = (body: string) => {
    let refused = false;
    return (_req: unknown, res: ServerResponse) => {
      if (refused) return false;
      refused = true;
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(body);
      return true;
    };
  };

  it('is a rate limit: waits the minute GitHub asks for, then retries', async () => {
    const sleeps: number[] = [];
    server = await startThreadServer({ threads: { 'acme/payments#128': worked }, intercept: refuseFirst(SECONDARY) });
    const t = await fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, sleep: async (ms) => void sleeps.push(ms), labels: false });
    assert.deepEqual(t.comments, worked);
    assert.deepEqual(sleeps, [60_000]);
    assert.equal(t.waits[0].cause, 'rate-limit');
    assert.match(t.waits[0].reason, /^HTTP 403 without retry-after: You have exceeded a secondary rate limit/);
    assert.equal(server.requests.length, 2);
  });

  it('fails with SF_E_RATE_LIMIT, not SF_E_FORBIDDEN, when the minute is beyond --max-wait', async () => {
    const sleeps: number[] = [];
    server = await startThreadServer({ threads: { 'acme/payments#128': worked }, intercept: refuseFirst(SECONDARY) });
    await assert.rejects(
      fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, sleep: async (ms) => void sleeps.push(ms), maxWaitMs: 10_000 }),
      (e) => isSfError(e, 'SF_E_RATE_LIMIT') && /must wait 60 s \(HTTP 403 without retry-after: You have exceeded a secondary rate limit/.test(e.message) && /--max-wait \(now 10 s\)/.test(e.hint ?? ''),
    );
    assert.deepEqual(sleeps, []);
  });

  it('a 403 without a rate-limit message stays a permission error', async () => {
    server = await startThreadServer({ threads: { 'acme/payments#128': worked }, intercept: refuseFirst('{"message":"Resource not accessible by integration"}') });
    await assert.rejects(fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, sleep: async () => undefined }), (e) => isSfError(e, 'SF_E_FORBIDDEN') && /lacks read access/.test(e.hint ?? ''));
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(waitForRefusal(403, new Headers(), now, 'You have triggered an abuse detection mechanism.')?.ms, 60_000);
    assert.equal(waitForRefusal(403, new Headers(), now, 'Must have admin rights to Repository.'), null);
  });
});
