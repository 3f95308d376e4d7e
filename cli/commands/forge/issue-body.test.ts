import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { runSf, tempDir } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';

/** CLI tests run dist/: build first with `npm run build`. */
const GIST = 'Part of #5.\n\n<!-- FORGE:PRIOR_GIST: https://gist.example/abc -->\n';
const noTokens = { FORGE_TOKEN: '', GITHUB_TOKEN: '', GH_TOKEN: '', GITLAB_TOKEN: '' };

describe('sf forge: the issue body is part of the thread (D2)', () => {
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('fetch reads FORGE:PRIOR_GIST from the sub-issue body, and check finds it in the fetched thread', async () => {
    server = await startThreadServer({
      threads: { 'o/r#7': [] },
      intercept: (req, res) => {
        if (req.url !== '/repos/o/r/issues/7') return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ number: 7, title: 'sub-issue', body: GIST, user: { login: 'decomposer' }, labels: [{ name: 'workflow:investigating' }] }));
        return true;
      },
    });
    const dir = await tempDir();
    try {
      const out = join(dir.path, 'thread.json');
      const args = ['forge', 'fetch', '--api', server.url, '--repo', 'o/r', '--issue', '7'];
      const r = await runSf([...args, '--out', out], { env: noTokens });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^0 comments and the issue body in 1 page from o\/r#7; labels: \["workflow:investigating"\]$/m);
      assert.match(r.stdout, /FORGE:PRIOR_GIST +complete \(presence\) +issue body by decomposer, line 3 +https:\/\/gist\.example\/abc/);
      const check = await runSf(['forge', 'check', out, '--require', 'PRIOR_GIST']);
      assert.equal(check.code, 0, check.stdout + check.stderr);
      assert.match(check.stdout, /^ok   FORGE:PRIOR_GIST \(1\)$/m);
      const json = JSON.parse((await runSf([...args, '--json'], { env: noTokens })).stdout);
      assert.deepEqual([json.body, json.author, json.comments], [GIST, 'decomposer', []]);
    } finally {
      await dir.cleanup();
    }
  });

  it('parse and check read the body of `gh issue view --json body,comments,labels`', async () => {
    const dir = await tempDir();
    try {
      const file = join(dir.path, 'gh.json');
      await writeFile(file, JSON.stringify({ body: GIST, comments: [{ author: { login: 'inv' }, body: 'hello', createdAt: '2026-01-01T00:00:00Z', id: 'IC_1' }], labels: [{ name: 'workflow:investigating' }] }));
      const parse = await runSf(['forge', 'parse', file]);
      assert.equal(parse.code, 0, parse.stderr);
      assert.match(parse.stdout, /^1 annotation in 1 comment and the issue body \(gh-cli\)$/m);
      const json = JSON.parse((await runSf(['forge', 'parse', file, '--json'])).stdout);
      assert.deepEqual([json.comments, json.issueBody, json.annotations[0].comment], [1, true, { index: -1, issueBody: true }]);
      const check = await runSf(['forge', 'check', file, '--require', 'PRIOR_GIST']);
      assert.equal(check.code, 0, check.stdout + check.stderr);
    } finally {
      await dir.cleanup();
    }
  });
});
