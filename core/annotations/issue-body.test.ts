import assert from 'node:assert/strict';
import { startGitLabServer, type GitLabServer } from '../../test-support/forge-gitlab-server.js';
import { startThreadServer, type ThreadServer } from '../../test-support/forge-thread-server.js';
import { runConformanceCheck } from './check.js';
import { fetchIssueThread } from './fetch/issue-thread.js';
import { parseThread, readThreadDocument, readThreadInput } from './thread.js';

/** The issue body is the start of the thread (spec 5) and where FORGE:PRIOR_GIST lives (4.2). */

const GIST = 'Part of #5.\n\n<!-- FORGE:PRIOR_GIST: https://gist.example/abc -->\n';
const noSleep = async () => undefined;

describe('the issue body is part of the thread (D2)', () => {
  it('reads the body of `gh issue view --json body,comments,labels` ahead of the comments', () => {
    const input = readThreadInput(
      JSON.stringify({
        author: { login: 'decomposer[bot]' },
        body: GIST,
        comments: [{ author: { login: 'inv' }, body: 'hello', createdAt: '2026-01-01T00:00:00Z', id: 'IC_1' }],
        labels: [{ name: 'workflow:investigating' }],
      }),
    );
    assert.deepEqual(input.comments.map((c) => [c.index, c.issueBody ?? false, c.author]), [[-1, true, 'decomposer[bot]'], [0, false, 'inv']]);
    const parsed = parseThread(input.comments);
    assert.deepEqual(parsed.annotations.map((a) => [a.tag, a.value, a.comment]), [['FORGE:PRIOR_GIST', 'https://gist.example/abc', { index: -1, issueBody: true, author: 'decomposer[bot]' }]]);
    const report = runConformanceCheck(parsed, { require: ['PRIOR_GIST'], labels: input.labels });
    assert.equal(report.ok, true);
    assert.deepEqual(report.entries[0].first, { comment: -1, line: 3 });
  });

  it('reads a GitLab `description`, and names the issue body in diagnostics', () => {
    const input = readThreadDocument({ description: '<!-- FORGE:PRIOR_GIST: not a url -->', author: { username: 'bot' }, comments: [] });
    const [a] = parseThread(input.comments).annotations;
    assert.deepEqual([a.comment?.issueBody, a.comment?.author, a.diagnostics[0].code, a.diagnostics[0].file], [true, 'bot', 'FORGE_INLINE_NOT_URL', 'issue body']);
    // without a body, or with "body": null (fetch read none), the thread is the comments alone
    assert.equal(readThreadDocument({ body: null, comments: [{ body: 'x' }] }).comments.length, 1);
  });

  describe('fetchIssueThread keeps the issue body and its author (servers on 127.0.0.1)', () => {
    let github: ThreadServer | undefined;
    let gitlab: GitLabServer | undefined;
    afterEach(async () => {
      await github?.close();
      await gitlab?.close();
      github = gitlab = undefined;
    });

    it('GitHub and Gitea: `body` and `user.login` of GET /issues/{n}', async () => {
      github = await startThreadServer({
        threads: { 'o/r#7': [] },
        intercept: (req, res) => {
          if (req.url !== '/repos/o/r/issues/7') return false;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ number: 7, title: 'sub-issue', body: GIST, user: { login: 'decomposer[bot]' }, labels: [{ name: 'workflow:investigating' }] }));
          return true;
        },
      });
      const t = await fetchIssueThread({ api: github.url, repo: 'o/r', issue: 7, sleep: noSleep });
      assert.deepEqual([t.body, t.author, t.labels, t.comments], [GIST, 'decomposer[bot]', ['workflow:investigating'], []]);
      const annotations = parseThread(readThreadDocument({ ...t }).comments).annotations;
      assert.deepEqual(annotations.map((a) => [a.type, a.comment?.issueBody]), [['PRIOR_GIST', true]]);
    });

    it('GitLab: `description` and `author.username`; an empty body is null', async () => {
      gitlab = await startGitLabServer({
        projects: [{ id: 5, path: 'g/p', issues: { 7: [], 8: [] } }],
        intercept: (req, res) => {
          const m = /\/issues\/(7|8)$/.exec(req.url ?? '');
          if (!m) return false;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ iid: Number(m[1]), description: m[1] === '7' ? GIST : '', author: { username: 'bot' }, labels: [] }));
          return true;
        },
      });
      const t = await fetchIssueThread({ api: gitlab.api, repo: 'g/p', issue: 7, sleep: noSleep });
      assert.deepEqual([t.platform, t.body, t.author], ['gitlab', GIST, 'bot']);
      const empty = await fetchIssueThread({ api: gitlab.api, repo: 'g/p', issue: 8, sleep: noSleep });
      assert.equal(empty.body, null);
    });
  });
});
