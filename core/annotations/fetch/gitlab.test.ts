import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSfError } from '../../errors/index.js';
import { fixturesDir } from '../../../test-support/index.js';
import { startGitLabServer, type GitLabServer } from '../../../test-support/forge-gitlab-server.js';
import { parseThread, normalizeComments } from '../thread.js';
import { fetchIssueThread } from './issue-thread.js';
import { detectFetchPlatform } from './platform.js';
import { waitBeforeNext, waitForRefusal } from './rate-limit.js';

const notes = JSON.parse(readFileSync(join(fixturesDir, 'annotations', 'threads', 'worked-example.gitlab.json'), 'utf8')) as { created_at: string }[];
/** the notes as GitLab returns them with sort=asc */
const ascending = [...notes].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
/** the `page` query parameter of a request (`per_page=2` is not page 2) */
const pageOf = (url: string | undefined) => new URL(url ?? '/', 'http://127.0.0.1').searchParams.get('page');
const project = { id: 42, path: 'acme/platform/payments', issues: { 128: notes }, labels: { 128: ['bug', 'workflow:merged'] } };

describe('fetchIssueThread from GitLab REST v4 (a GitLab-shaped server on 127.0.0.1)', () => {
  let server: GitLabServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  beforeEach(() => (sleeps.length = 0));

  it('reads every page of the notes, oldest first, for a subgroup path, with a Bearer token, then the labels', async () => {
    server = await startGitLabServer({ projects: [{ ...project, visibility: 'private' }], token: 'glpat-abcdefghij0123456789' });
    const t = await fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, token: 'glpat-abcdefghij0123456789', perPage: 2, sleep });
    assert.equal(t.platform, 'gitlab');
    assert.equal(t.pages, 3);
    assert.deepEqual(t.comments, ascending, 'the notes as returned, system notes included');
    assert.deepEqual(t.labels, ['bug', 'workflow:merged']);
    const first = '/api/v4/projects/acme%2Fplatform%2Fpayments/issues/128';
    assert.deepEqual(server.requests.map((r) => r.url.split('?')[0]), [`${first}/notes`, `${first}/notes`, `${first}/notes`, first]);
    assert.equal(server.requests[0].url, `${first}/notes?per_page=2&sort=asc&order_by=created_at`);
    assert.ok(server.requests.every((r) => r.authorization === 'Bearer glpat-abcdefghij0123456789'), JSON.stringify(server.requests));
    const parsed = parseThread(normalizeComments(t.comments).comments);
    assert.deepEqual(parsed.annotations.map((a) => a.tag), ['FORGE:INVESTIGATOR', 'FORGE:BUILDER', 'FORGE:TRAJECTORY']);
    assert.deepEqual(sleeps, []);
  });

  it('reads a merge request: its notes and its description (--merge-request), not an issue of the same IID', async () => {
    const description = '<!-- FORGE:PRIOR_GIST https://gist.example/abc -->';
    server = await startGitLabServer({ projects: [{ ...project, mergeRequests: { 7: { notes: ascending, description, labels: ['workflow:in-review'] } } }] });
    const t = await fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 7, mergeRequest: true, sleep });
    assert.equal(t.mergeRequest, true);
    assert.deepEqual(t.comments, ascending);
    assert.equal(t.body, description);
    assert.equal(t.author, 'mr-author');
    assert.deepEqual(t.labels, ['workflow:in-review']);
    const base = '/api/v4/projects/acme%2Fplatform%2Fpayments/merge_requests/7';
    assert.deepEqual(server.requests.map((r) => r.url.split('?')[0]), [`${base}/notes`, base]);
    await assert.rejects(fetchIssueThread({ api: 'https://api.github.com', repo: 'o/r', issue: 7, mergeRequest: true, sleep }), (e) => isSfError(e, 'SF_E_USAGE') && /GitLab/.test(e.message) && /--issue 7/.test(e.hint ?? ''));
  });

  it('takes a numeric project ID, and refuses a subgroup path or a web root where they do not fit', async () => {
    server = await startGitLabServer({ projects: [project] });
    const byId = await fetchIssueThread({ api: server.api, repo: '42', issue: 128, sleep, labels: false });
    assert.equal(byId.comments.length, 5);
    assert.equal(server.requests[0].url, '/api/v4/projects/42/issues/128/notes?per_page=100&sort=asc&order_by=created_at');
    await assert.rejects(fetchIssueThread({ api: server.url, platform: 'github', repo: 'acme/platform/payments', issue: 1 }), (e) => isSfError(e, 'SF_E_USAGE') && /not owner\/name/.test(e.message) && /--platform gitlab/.test(e.hint ?? ''));
    await assert.rejects(fetchIssueThread({ api: server.api, repo: 'acme/../payments', issue: 1 }), (e) => isSfError(e, 'SF_E_USAGE') && /GitLab project/.test(e.message));
    await assert.rejects(fetchIssueThread({ api: 'https://gitlab.com', repo: 'a/b', issue: 1 }), (e) => isSfError(e, 'SF_E_USAGE') && /\/api\/v4/.test(e.message) && /https:\/\/gitlab\.com\/api\/v4/.test(e.hint ?? ''));
    await assert.rejects(fetchIssueThread({ api: 'http://gitlab.example/api/v4', repo: 'a/b', issue: 1, token: 't' }), (e) => isSfError(e, 'SF_E_USAGE') && /plain http/.test(e.message));
    await assert.rejects(fetchIssueThread({ api: server.api, platform: 'bitbucket' as never, repo: 'a/b', issue: 1 }), (e) => isSfError(e, 'SF_E_USAGE') && /github, gitea, gitlab/.test(e.hint ?? ''));
  });

  it('maps 401, 403 and 404 with GitLab’s messages, never showing the token', async () => {
    server = await startGitLabServer({ projects: [{ ...project, visibility: 'private' }, { id: 7, path: 'acme/locked', issues: { 1: [] }, forbidden: true }], token: 'right' });
    const opts = { api: server.api, issue: 128, sleep };
    await assert.rejects(fetchIssueThread({ ...opts, repo: 'acme/platform/payments', token: 'glpat-wrongwrongwrong0123' }), (e) => isSfError(e, 'SF_E_AUTH') && /401 Unauthorized/.test(e.message) && !JSON.stringify(e.toJSON()).includes('glpat-wrong'));
    await assert.rejects(fetchIssueThread({ ...opts, repo: 'acme/locked', issue: 1, token: 'right' }), (e) => isSfError(e, 'SF_E_FORBIDDEN') && /403 Forbidden/.test(e.message));
    // a private project hides from an anonymous request: 404, and the hint says a token is needed
    await assert.rejects(fetchIssueThread({ ...opts, repo: 'acme/platform/payments' }), (e) => isSfError(e, 'SF_E_NOT_FOUND') && /404 Project Not Found/.test(e.message) && /token/.test(e.hint ?? ''));
    await assert.rejects(fetchIssueThread({ ...opts, repo: 'acme/platform/payments', issue: 9, token: 'right' }), (e) => isSfError(e, 'SF_E_NOT_FOUND') && /404 Issue Not Found/.test(e.message));
  });

  it('shows an OAuth error body ({"error", "error_description"}) and redacts a GitLab token echoed in it', async () => {
    server = await startGitLabServer({
      projects: [project],
      intercept: (_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_token', error_description: 'Token glpat-Zx9yW8vU7tS6rQ5pO4nM is expired. You can either do re-authorization or token refresh.' }));
        return true;
      },
    });
    await assert.rejects(fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, token: 'other-token-value', sleep }), (e) => {
      assert.ok(isSfError(e, 'SF_E_AUTH'));
      assert.match(e.message, /Token \[redacted\] is expired/);
      assert.ok(!e.message.includes('glpat-Zx9'), e.message);
      return true;
    });
  });

  it('waits for Retry-After, and for RateLimit-Reset when a 429 has no Retry-After, then retries', async () => {
    let refused = 0;
    server = await startGitLabServer({
      projects: [project],
      intercept: (req, res) => {
        if (pageOf(req.url) === '2' && refused === 0) {
          refused++;
          res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '5', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 5) });
          res.end('Retry later\n');
          return true;
        }
        if (pageOf(req.url) === '3' && refused === 1) {
          refused++;
          const reset = Math.floor(Date.now() / 1000) + 20;
          res.writeHead(429, { 'content-type': 'application/json', 'ratelimit-limit': '600', 'ratelimit-observed': '600', 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset), 'ratelimit-resettime': new Date(reset * 1000).toUTCString() });
          res.end('{"message":{"error":"This endpoint has been requested too many times. Try again later."}}');
          return true;
        }
        return false;
      },
    });
    const t = await fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, perPage: 2, sleep, labels: false });
    assert.deepEqual(t.comments, ascending);
    assert.equal(sleeps[0], 5000);
    assert.ok(sleeps[1] > 10_000 && sleeps[1] <= 20_000, `RateLimit-Reset, not the 60 s fallback: ${sleeps[1]}`);
    assert.equal(sleeps.length, 2);
  });

  it('paces the next request when RateLimit-Remaining reaches 0, and gives up past --max-wait', async () => {
    server = await startGitLabServer({
      projects: [project],
      intercept: (req, res) => {
        if (!req.url?.endsWith('/notes?per_page=2&sort=asc&order_by=created_at')) return false;
        res.writeHead(200, { 'content-type': 'application/json', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 15), link: `<${server!.api}/projects/acme%2Fplatform%2Fpayments/issues/128/notes?page=2&per_page=2&sort=asc&order_by=created_at>; rel="next"` });
        res.end(JSON.stringify(ascending.slice(0, 2)));
        return true;
      },
    });
    const t = await fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, perPage: 2, sleep, labels: false });
    assert.equal(t.comments.length, 5);
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0] > 5_000 && sleeps[0] <= 15_000, String(sleeps[0]));
    await server.close();
    server = await startGitLabServer({
      projects: [project],
      intercept: (_req, res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) });
        res.end('{"message":"Retry later"}');
        return true;
      },
    });
    sleeps.length = 0;
    await assert.rejects(fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, sleep, maxWaitMs: 60_000 }), (e) => isSfError(e, 'SF_E_RATE_LIMIT') && /RateLimit-Reset/i.test(e.message) && /--max-wait/.test(e.hint ?? ''));
    assert.deepEqual(sleeps, []);
  });

  it('retries a 502, follows x-next-page when a proxy dropped the Link header, and stops a page loop', async () => {
    let failed = false;
    server = await startGitLabServer({
      projects: [project],
      noLink: true,
      intercept: (req, res) => {
        if (failed || pageOf(req.url) !== '2') return false;
        failed = true;
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
        return true;
      },
    });
    const t = await fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, perPage: 2, sleep, labels: false });
    assert.deepEqual([t.pages, t.comments], [3, ascending]);
    assert.deepEqual(server.requests.map((r) => pageOf(r.url)), [null, '2', '2', '3']);
    assert.deepEqual(t.waits.map((w) => w.cause), ['server-error']);
    await server.close();
    server = await startGitLabServer({
      projects: [project],
      intercept: (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-next-page': '2', link: `<${server!.api}/projects/acme%2Fplatform%2Fpayments/issues/128/notes?page=2&per_page=2>; rel="next"` });
        res.end('[]');
        return true;
      },
    });
    await assert.rejects(fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, perPage: 2, sleep }), (e) => isSfError(e, 'SF_E_FETCH') && /loops back/.test(e.message));
  });

  it('never follows a next page to another host, and bounds the pages', async () => {
    server = await startGitLabServer({
      projects: [project],
      intercept: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', link: '<http://localhost:1/api/v4/steal?page=2>; rel="next"' });
        res.end('[]');
        return true;
      },
    });
    await assert.rejects(fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, token: 't', sleep }), (e) => isSfError(e, 'SF_E_FETCH') && /another host/.test(e.message));
    assert.equal(server.requests.length, 1);
    await server.close();
    server = await startGitLabServer({ projects: [project] });
    await assert.rejects(fetchIssueThread({ api: server.api, repo: 'acme/platform/payments', issue: 128, perPage: 1, maxPages: 4, sleep }), (e) => isSfError(e, 'SF_E_LIMIT') && /--max-pages \(now 4\)/.test(e.hint ?? ''));
  });
});

describe('fetch platform detection and GitLab rate-limit headers', () => {
  it('detects gitlab from /api/v4 or gitlab.com, gitea from /api/v1, else github', () => {
    const d = (u: string) => detectFetchPlatform(new URL(u));
    assert.deepEqual(
      [d('https://gitlab.com/api/v4'), d('https://git.example/gitlab/api/v4/'), d('https://gitlab.com'), d('https://gitea.example/api/v1'), d('https://api.github.com'), d('https://ghe.example/api/v3')],
      ['gitlab', 'gitlab', 'gitlab', 'gitea', 'github', 'github'],
    );
  });

  it('reads RateLimit-Remaining / RateLimit-Reset (epoch) and RateLimit-ResetTime', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const h = (o: Record<string, string>) => new Headers(o);
    assert.equal(waitForRefusal(429, h({ 'ratelimit-remaining': '0', 'ratelimit-reset': String(now / 1000 + 42) }), now)?.ms, 42_000);
    assert.equal(waitForRefusal(429, h({ 'ratelimit-remaining': '0', 'ratelimit-resettime': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)?.ms, 30_000);
    assert.equal(waitBeforeNext(h({ 'ratelimit-remaining': '0', 'ratelimit-reset': String(now / 1000 + 9) }), now)?.ms, 9000);
    assert.equal(waitBeforeNext(h({ 'ratelimit-remaining': '5', 'ratelimit-reset': String(now / 1000 + 9) }), now), null);
  });
});
