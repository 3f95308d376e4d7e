import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';
import { parseThread, readThreadDocument } from '../thread.js';
import { fetchIssueThread } from './issue-thread.js';

/** REVIEWER is written "on the pull request" (spec 4.1): fetch reads a pull request's reviews too. */
const worked = JSON.parse(readFileSync(join(fixturesDir, 'annotations', 'threads', 'worked-example.github.json'), 'utf8')) as { created_at: string }[];
const REVIEW =
  '<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: APPROVED\n\n### Findings\nNone';
const review = (id: number, state: string, body: string, at?: string) => ({
  id,
  node_id: `PRR_${id}`,
  user: { login: 'forge-reviewer[bot]' },
  body,
  state,
  html_url: `https://github.com/acme/payments/pull/128#pullrequestreview-${id}`,
  pull_request_url: 'https://api.github.com/repos/acme/payments/pulls/128',
  author_association: 'NONE',
  ...(at ? { submitted_at: at } : {}),
});
const REVIEWS = [review(31, 'APPROVED', REVIEW, '2026-01-15T09:00:00Z'), review(32, 'COMMENTED', 'looks fine', '2026-01-15T09:05:00Z'), review(33, 'PENDING', 'draft')];

describe('fetchIssueThread reads the reviews of a pull request (GitHub REST on 127.0.0.1)', () => {
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a pull request: its submitted reviews follow the comments and are read in date order with them', async () => {
    server = await startThreadServer({
      threads: { 'acme/payments#128': worked },
      intercept: (req, res) => {
        const json = (body: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(200, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
          return true;
        };
        if (req.url === '/repos/acme/payments/issues/128') return json({ number: 128, body: null, user: { login: 'dev' }, labels: [], pull_request: { url: 'https://api.github.com/repos/acme/payments/pulls/128' } });
        if (req.url === '/repos/acme/payments/pulls/128/reviews?per_page=2') return json(REVIEWS.slice(0, 2), { link: `<${server!.url}/repos/acme/payments/pulls/128/reviews?per_page=2&page=2>; rel="next"` });
        if (req.url === '/repos/acme/payments/pulls/128/reviews?per_page=2&page=2') return json(REVIEWS.slice(2));
        return false;
      },
    });
    const t = await fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, perPage: 2, sleep: async () => undefined });
    assert.deepEqual(server.requests.map((r) => r.url).slice(2), [
      '/repos/acme/payments/issues/128',
      '/repos/acme/payments/pulls/128/reviews?per_page=2',
      '/repos/acme/payments/pulls/128/reviews?per_page=2&page=2',
    ]);
    // the pending review (not submitted, seen by its author only) is left out
    assert.deepEqual([t.comments.length, t.reviews, t.pages], [worked.length + 2, 2, 4]);
    assert.deepEqual(t.comments.slice(worked.length), REVIEWS.slice(0, 2));
    const input = readThreadDocument({ platform: t.platform, comments: t.comments });
    assert.equal(input.platform, 'github');
    const { annotations } = parseThread(input.comments);
    const reviewer = annotations.find((a) => a.type === 'REVIEWER');
    assert.deepEqual([reviewer?.status, reviewer?.comment?.index, reviewer?.comment?.author, reviewer?.comment?.createdAt], ['complete', 3, 'forge-reviewer[bot]', '2026-01-15T09:00:00Z']);
    // read in date order: the review sits between the comments written before and after it
    const dates = input.comments.map((c) => Date.parse(c.createdAt!));
    assert.deepEqual(dates, [...dates].sort((a, b) => a - b));
  });

  it('an issue that is not a pull request: no reviews are asked for', async () => {
    server = await startThreadServer({ threads: { 'acme/payments#128': worked } });
    const t = await fetchIssueThread({ api: server.url, repo: 'acme/payments', issue: 128, sleep: async () => undefined });
    assert.equal(t.reviews, 0);
    assert.ok(server.requests.every((r) => !r.url.includes('/pulls/')));
  });
});
