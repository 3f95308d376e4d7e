import assert from 'node:assert/strict';
import { runSf } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';

/** CLI tests run dist/: build first with `npm run build`. */
const noTokens = { FORGE_TOKEN: '', GITHUB_TOKEN: '', GH_TOKEN: '', GITLAB_TOKEN: '' };

describe('sf forge fetch: a GitHub secondary rate limit without headers (D3)', () => {
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is reported as a rate limit (exit 7, how long to wait, --max-wait), not as a token without access', async () => {
    server = await startThreadServer({
      threads: {},
      intercept: (_req, res) => {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }));
        return true;
      },
    });
    const r = await runSf(['forge', 'fetch', '--api', server.url, '--repo', 'o/r', '--issue', '1', '--max-wait', '5'], { env: noTokens });
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /SF_E_RATE_LIMIT/);
    assert.match(r.stderr, /must wait 60 s \(HTTP 403 without retry-after: You have exceeded a secondary rate limit/);
    assert.match(r.stderr, /--max-wait \(now 5 s\)/);
    assert.doesNotMatch(r.stderr, /lacks read access/);
    assert.equal(server.requests.length, 1);
  });
});
