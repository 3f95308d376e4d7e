import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir, runSf } from '../../../test-support/index.js';
import { startGitLabServer, type GitLabServer } from '../../../test-support/forge-gitlab-server.js';

const fx = (p: string) => JSON.parse(readFileSync(join(fixturesDir, 'annotations', p), 'utf8')) as unknown[];
const TOKEN = 'glpat-Cli0123456789abcdefXYZ';
/** no credential from the developer's environment reaches the test server */
const noTokens = { FORGE_TOKEN: '', GITHUB_TOKEN: '', GH_TOKEN: '', GITLAB_TOKEN: '' };

describe('sf forge fetch from GitLab (built CLI, GitLab v4 server on 127.0.0.1)', () => {
  let server: GitLabServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('fetch --json | check: a multi-page subgroup thread with labels passes check end to end; the token goes as Bearer, never printed', async () => {
    server = await startGitLabServer({
      projects: [{ id: 42, path: 'acme/platform/payments', visibility: 'private', issues: { 128: fx('threads/worked-example.gitlab.json') }, labels: { 128: ['bug', 'workflow:merged'] } }],
      token: TOKEN,
    });
    const args = ['forge', 'fetch', '--api', server.api, '--repo', 'acme/platform/payments', '--issue', '128', '--per-page', '2'];
    const fetched = await runSf([...args, '--json'], { env: { ...noTokens, FORGE_TOKEN: TOKEN } });
    assert.equal(fetched.code, 0, fetched.stderr);
    const doc = JSON.parse(fetched.stdout) as { api: string; platform: string; repo: string; labels: string[]; comments: { system: boolean }[] };
    assert.deepEqual([doc.api, doc.platform, doc.repo, doc.labels], [server.api, 'gitlab', 'acme/platform/payments', ['bug', 'workflow:merged']]);
    assert.deepEqual(doc.comments.map((n) => n.system), [false, true, false, false, true], 'notes as GitLab returns them, oldest first');
    assert.equal(server.requests.length, 4);
    assert.ok(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`));
    const check = await runSf(['forge', 'check', '-', '--require', 'INVESTIGATOR,BUILDER,TRAJECTORY'], { input: fetched.stdout });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /terminal: workflow:merged/);
    assert.match(check.stdout, /result: PASS \(3 required\)/);
    const human = await runSf(args, { env: { ...noTokens, FORGE_TOKEN: TOKEN } });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^5 comments in 3 pages from acme\/platform\/payments#128; labels: \["bug","workflow:merged"\]$/m);
    assert.match(human.stdout, /FORGE:TRAJECTORY/);
    for (const r of [fetched, human]) assert.ok(!(r.stdout + r.stderr).includes(TOKEN));
  });

  it('--merge-request reads a GitLab merge request (notes and description); exactly one of --issue and --merge-request', async () => {
    server = await startGitLabServer({ projects: [{ id: 42, path: 'acme/payments', issues: {}, mergeRequests: { 9: { notes: fx('threads/worked-example.gitlab.json'), description: 'Fixes the rounding.', labels: ['workflow:in-review'] } } }] });
    const base = ['forge', 'fetch', '--api', server.api, '--repo', 'acme/payments'];
    const human = await runSf([...base, '--merge-request', '9'], { env: noTokens });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^5 comments and the merge request description in 1 page from acme\/payments!9; labels: \["workflow:in-review"\]$/m);
    const json = await runSf([...base, '--merge-request', '9', '--json'], { env: noTokens });
    const doc = JSON.parse(json.stdout) as { issue: number; mergeRequest?: boolean; body: string };
    assert.deepEqual([doc.issue, doc.mergeRequest, doc.body], [9, true, 'Fixes the rounding.']);
    for (const args of [[...base], [...base, '--issue', '9', '--merge-request', '9']]) {
      const r = await runSf(args, { env: noTokens });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /SF_E_USAGE.*--issue/);
    }
  });

  it('an interrupted GitLab thread (by project ID) fails check; --platform overrides the detection', async () => {
    server = await startGitLabServer({ projects: [{ id: 7, path: 'acme/reports', issues: { 7: fx('threads/interrupted.gitlab.json') }, labels: { 7: ['workflow:building', 'needs-human', 'bug'] } }] });
    const fetched = await runSf(['forge', 'fetch', '--api', server.api, '--repo', '7', '--issue', '7', '--json'], { env: noTokens });
    assert.equal(fetched.code, 0, fetched.stderr);
    const check = await runSf(['forge', 'check', '-', '--require', 'INVESTIGATOR,BUILDER'], { input: fetched.stdout });
    assert.equal(check.code, 1, check.stdout);
    assert.match(check.stdout, /builder INCOMPLETE \(interrupted/);
    assert.match(check.stdout, /terminal: needs-human/);
    // --platform overrides the detection: GitHub's path on GitLab is an unknown route
    const named = await runSf(['forge', 'fetch', '--api', server.api, '--platform', 'github', '--repo', 'acme/reports', '--issue', '7', '--json'], { env: noTokens });
    assert.equal(JSON.parse(named.stderr).error.code, 'SF_E_NOT_FOUND', named.stderr);
    assert.equal(server.requests.at(-1)?.url, '/api/v4/repos/acme/reports/issues/7/comments?per_page=100');
    const bad = await runSf(['forge', 'fetch', '--api', server.api, '--platform', 'bitbucket', '--repo', 'a/b', '--issue', '1'], { env: noTokens });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--platform/);
  });

  it('maps GitLab’s 401 / 403 / 404 to exit codes with its messages; the rejected token is not printed', async () => {
    server = await startGitLabServer({ projects: [{ id: 1, path: 'acme/payments', visibility: 'private', issues: { 1: [] } }, { id: 2, path: 'acme/locked', issues: { 1: [] }, forbidden: true }], token: 'right-token-000' });
    const run = (repo: string, env: Record<string, string>) => runSf(['forge', 'fetch', '--api', server!.api, '--repo', repo, '--issue', '1', '--json'], { env: { ...noTokens, ...env } });
    const wrong = await run('acme/payments', { FORGE_TOKEN: TOKEN });
    assert.equal(wrong.code, 8, wrong.stderr);
    assert.match(JSON.parse(wrong.stderr).error.message, /HTTP 401: 401 Unauthorized/);
    assert.ok(!wrong.stderr.includes(TOKEN));
    const locked = await run('acme/locked', { FORGE_TOKEN: 'right-token-000' });
    assert.equal(JSON.parse(locked.stderr).error.code, 'SF_E_FORBIDDEN', locked.stderr);
    const hidden = await run('acme/payments', {});
    assert.equal(JSON.parse(hidden.stderr).error.code, 'SF_E_NOT_FOUND', hidden.stderr);
    assert.match(JSON.parse(hidden.stderr).error.message, /404 Project Not Found/);
  });

  it('waits out a GitLab 429 (Retry-After) and says so on stderr', async () => {
    let refused = false;
    server = await startGitLabServer({
      projects: [{ id: 1, path: 'acme/payments', issues: { 1: fx('threads/interrupted.gitlab.json') } }],
      intercept: (_req, res) => {
        if (refused) return false;
        refused = true;
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '0', 'ratelimit-remaining': '0', 'ratelimit-reset': String(Math.floor(Date.now() / 1000)) });
        res.end('Retry later\n');
        return true;
      },
    });
    const r = await runSf(['forge', 'fetch', '--api', server.api, '--repo', 'acme/payments', '--issue', '1'], { env: noTokens });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^waiting 0 s for the rate limit \(HTTP 429, retry-after 0\)$/m);
  });

  it('uses GITLAB_TOKEN for gitlab.com only (and never over plain http)', async () => {
    server = await startGitLabServer({ projects: [{ id: 1, path: 'acme/payments', issues: { 1: [] } }] });
    const local = await runSf(['forge', 'fetch', '--api', server.api, '--repo', 'acme/payments', '--issue', '1', '--json'], { env: { ...noTokens, GITLAB_TOKEN: TOKEN } });
    assert.equal(local.code, 0, local.stderr);
    assert.deepEqual(server.requests.map((r) => r.authorization), [undefined, undefined], 'GITLAB_TOKEN is not sent to another host');
    // chosen for gitlab.com: the plain-http guard refuses it before any request is made
    const hosted = await runSf(['forge', 'fetch', '--api', 'http://gitlab.com/api/v4', '--repo', 'acme/payments', '--issue', '1'], { env: { ...noTokens, GITLAB_TOKEN: TOKEN } });
    assert.equal(hosted.code, 2, hosted.stderr);
    assert.match(hosted.stderr, /refusing to send a token over plain http to gitlab\.com/);
    assert.ok(!hosted.stderr.includes(TOKEN));
  });
});
