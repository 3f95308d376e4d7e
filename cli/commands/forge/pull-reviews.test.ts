import assert from 'node:assert/strict';
import { runSf } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';

/** CLI tests run dist/: build first with `npm run build`. */
const noTokens = { FORGE_TOKEN: '', GITHUB_TOKEN: '', GH_TOKEN: '', GITLAB_TOKEN: '' };
const REVIEW = '<!-- FORGE:REVIEWER -->\n## Review — LOGIC\n\n**Verdict**: CHANGES_REQUESTED\n\n### Findings\n- **Severity**: HIGH\n  **Location**: `a.ts:1`\n  **Issue**: wrong\n  **Suggested fix**: fix\n  **Prevention**: test';

describe('sf forge fetch of a pull request reads its reviews', () => {
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a REVIEWER posted as a review is found by fetch and by check of its output', async () => {
    server = await startThreadServer({
      threads: { 'o/r#9': [{ id: 1, node_id: 'IC_1', user: { login: 'dev' }, created_at: '2026-01-01T00:00:00Z', body: 'please review' }] },
      intercept: (req, res) => {
        const answer = req.url === '/repos/o/r/issues/9' ? { number: 9, body: '', user: { login: 'dev' }, labels: [{ name: 'workflow:building' }], pull_request: { url: 'x' } } : req.url === '/repos/o/r/pulls/9/reviews?per_page=100' ? [{ id: 7, node_id: 'PRR_7', user: { login: 'rev[bot]' }, body: REVIEW, state: 'CHANGES_REQUESTED', submitted_at: '2026-01-01T01:00:00Z', pull_request_url: 'x' }] : null;
        if (!answer) return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
        return true;
      },
    });
    const args = ['forge', 'fetch', '--api', server.url, '--repo', 'o/r', '--issue', '9'];
    const r = await runSf(args, { env: noTokens });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^2 comments \(1 of them pull request review\) in 2 pages from o\/r#9; labels: \["workflow:building"\]$/m);
    assert.match(r.stdout, /FORGE:REVIEWER +complete \(structure\) +comment 2 by rev\[bot\]/);
    const json = await runSf([...args, '--json'], { env: noTokens });
    const check = await runSf(['forge', 'check', '-', '--require', 'REVIEWER'], { input: json.stdout });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    // labels at building after a review that requested changes: the loop, not a lagging label
    assert.doesNotMatch(check.stdout + check.stderr, /FORGE_LABEL_BEHIND/);
  });
});
