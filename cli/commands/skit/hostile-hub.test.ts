import { strict as assert } from 'node:assert';
import { startServer, type TestServer } from '../../../test-support/http-server.js';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';
import { packSkit, twoSkillTree } from '../../../test-support/skit-archive.js';
import { createHash } from 'node:crypto';

/** What a broken or hostile hub answers: the status and the body for a method and path. */
type Answer = (method: string, path: string) => { status?: number; type?: string; body: string | Buffer };

const ESC = '\u001b';
const hostileUser = JSON.stringify({ login: `alice${ESC}]0;PWNED\u0007`, token: { scopes: [`registry:write${ESC}[31m`], kind: 'pat' } });
const hostilePublish = JSON.stringify({
  created: true,
  skit: { visibility: `public${ESC}]0;PWNED\u0007${ESC}[2J` },
  release: { bundleHash: `sha256:${ESC}[31mEVIL${ESC}]8;;http://evil${ESC}\\x`, url: 'u', wellKnownIndex: 'w', skills: [{ id: 'acme/kit:review', hash: `h${ESC}[5mBLINK` }] },
});

/** No terminal control character (C0 but tab and newline, DEL, C1) in `text`. */
function assertNoControls(text: string, what: string): void {
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, `${what} carries control characters: ${JSON.stringify(text)}`);
}

/** An SF_E_FETCH failure (exit 7) naming the hub and the path, with a hint, and no stack trace. */
function assertFetchError(r: { code: number; stdout: string; stderr: string }, origin: string, path: RegExp): void {
  assert.equal(r.code, 7, r.stderr);
  assert.match(r.stderr, /error\[SF_E_FETCH\]/);
  assert.ok(r.stderr.includes(origin), r.stderr);
  assert.match(r.stderr, path);
  assert.match(r.stderr, /hint: /);
  assert.doesNotMatch(r.stderr, /TypeError|SyntaxError|undefined|\n\s+at /);
}

describe('sf against a broken or hostile hub', () => {
  let sb: InstallSandbox;
  let server: TestServer;
  let answer: Answer;
  const token = { SF_HUB_TOKEN: 'sfp_x' };
  /** The bundle and skill hashes this machine computes for the sandbox's SKIT (what publish sends). */
  const localHashes = async (): Promise<{ bundle: string; skills: { id: string; hash: string }[] }> => {
    const r = await sb.sf(['skit', 'hash', sb.source, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const listing = JSON.parse(r.stdout) as { bundle: string; skills: { id: string; hash: string }[] };
    return { bundle: listing.bundle, skills: listing.skills.map((k) => ({ id: k.id, hash: k.hash })) };
  };
  beforeEach(async () => {
    sb = await installSandbox('sf-hostile-hub-');
    server = await startServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const a = answer(req.method ?? 'GET', req.url ?? '/');
        res.writeHead(a.status ?? 200, { 'content-type': a.type ?? 'application/json' });
        res.end(a.body);
      });
    });
  });
  afterEach(async () => {
    await server.close();
    await sb.cleanup();
  });

  describe('D1: text from the hub reaches the terminal sanitized', () => {
    it('sf skit publish shows the hub\'s hashes in the mismatch error without control characters', async () => {
      answer = (method) => (method === 'PUT' ? { status: 201, body: hostilePublish } : { status: 404, body: '{}' });
      const r = await sb.sf(['skit', 'publish', sb.source, '--version', '2.0.0', '--hub', server.origin], { env: token });
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, /error\[SF_E_HASH_MISMATCH\]: the hub published acme\/kit@2\.0\.0 with bundle sha256:\?\[31mEVIL/);
      assertNoControls(r.stdout, 'stdout');
      assertNoControls(r.stderr, 'stderr');
    });

    it('sf skit publish shows the visibility and hashes of an honest answer without control characters', async () => {
      const local = await localHashes();
      const honest = JSON.parse(hostilePublish);
      honest.release.bundleHash = local.bundle;
      honest.release.skills = local.skills;
      answer = (method) => (method === 'PUT' ? { status: 201, body: JSON.stringify(honest) } : { status: 404, body: '{}' });
      const r = await sb.sf(['skit', 'publish', sb.source, '--version', '2.0.0', '--hub', server.origin], { env: token });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /published acme\/kit@2\.0\.0 \(public\?\]0;PWNED\?\?\[2J\)/);
      assertNoControls(r.stdout, 'stdout');
    });

    it('sf login shows the scopes without control characters', async () => {
      answer = () => ({ body: hostileUser });
      const r = await sb.sf(['login', '--hub', server.origin], { env: token });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /scopes: registry:write\?\[31m\)/);
      assertNoControls(r.stdout, 'stdout');
    });
  });

  describe('D2: an answer that is not JSON or not of the documented shape is SF_E_FETCH (exit 7)', () => {
    it('sf skit publish: an answer without the release, and one that is HTML', async () => {
      answer = () => ({ status: 201, body: '{"ok":true}' });
      const wrongShape = await sb.sf(['skit', 'publish', sb.source, '--version', '2.0.0', '--hub', server.origin], { env: token });
      assertFetchError(wrongShape, server.origin, /PUT \/api\/v1\/skits\/acme\/kit\/releases\/2\.0\.0 with JSON of another shape \(release is missing\)/);
      answer = () => ({ status: 201, type: 'text/html', body: '<html>hi</html>' });
      const html = await sb.sf(['skit', 'publish', sb.source, '--version', '2.0.0', '--hub', server.origin], { env: token });
      assertFetchError(html, server.origin, /with a body that is not JSON/);
    });

    it('sf login, sf skit list --remote, sf skit pull and sf add skit on a hub that answers {} or HTML', async () => {
      answer = () => ({ body: '{}' });
      assertFetchError(await sb.sf(['login', '--hub', server.origin], { env: token }), server.origin, /GET \/api\/v1\/user with JSON of another shape \(login is missing\)/);
      assertFetchError(await sb.sf(['skit', 'list', '--remote', '--hub', server.origin]), server.origin, /GET \/api\/v1\/skits\?limit=200 with JSON of another shape \(skits is missing\)/);
      assertFetchError(await sb.sf(['skit', 'pull', 'a/b', '--hub', server.origin]), server.origin, /GET \/api\/v1\/skits\/a\/b\/releases\/latest with JSON of another shape \(skitId is missing\)/);
      answer = () => ({ type: 'text/html', body: '<html>hi</html>' });
      const added = await sb.sf(['add', 'skit', 'a/b', '--agent', 'codex', '--scope', 'user', '--yes'], { env: { SF_HUB_URL: server.origin } });
      assertFetchError(added, server.origin, /GET \/api\/v1\/skits\/a\/b\/releases\/latest with a body that is not JSON/);
    });

    it('--json: the error object on stderr has the code, the hub URL and a hint', async () => {
      answer = () => ({ body: '{"skits":[{"id":1}]}' });
      const r = await sb.sf(['skit', 'list', '--remote', '--hub', server.origin, '--json']);
      assert.equal(r.code, 7, r.stderr);
      assert.equal(r.stdout, '');
      const { error } = JSON.parse(r.stderr) as { error: { code: string; message: string; hint: string; data: { url: string } } };
      assert.equal(error.code, 'SF_E_FETCH');
      assert.match(error.message, /skits\[0\]\.id is a number, not a string/);
      assert.equal(error.data.url, `${server.origin}/api/v1/skits?limit=200`);
      assert.ok(error.hint);
    });
  });

  describe('D4: sf skit list --remote ends on a hub that pages forever', () => {
    const skit = (id: string) => ({ id, visibility: 'public', latestVersion: '1.0.0', description: '', skills: ['x'], deprecated: null });

    it('stops after the page cap with SF_E_LIMIT when every page offers a new next cursor', async () => {
      let n = 0;
      answer = () => ({ body: JSON.stringify({ skits: [skit(`a/b${++n}`)], next: `c${n}` }) });
      const r = await sb.sf(['skit', 'list', '--remote', '--hub', server.origin]);
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, /error\[SF_E_LIMIT\]: the hub at .* listed more than 100 pages \(100 SKITs\)/);
      assert.match(r.stderr, /hint: narrow the list with --query, --owner or --tag/);
      assert.equal(server.requests.length, 100);
    });

    it('refuses a next cursor the hub already gave (SF_E_FETCH)', async () => {
      let n = 0;
      answer = () => ({ body: JSON.stringify({ skits: [skit(`a/b${++n}`)], next: n % 2 ? 'c1' : 'c2' }) });
      const r = await sb.sf(['skit', 'list', '--remote', '--hub', server.origin, '--json']);
      assert.equal(r.code, 7, r.stderr);
      assert.match(JSON.parse(r.stderr).error.message, /already given \("c1"\)/);
      assert.equal(server.requests.length, 3);
    });

    it('still follows keyset and offset pages to the end', async () => {
      answer = (_m, path) => ({ body: JSON.stringify(path.includes('after=') ? { skits: [skit('a/two')] } : { skits: [skit('a/one')], next: 'a/one' }) });
      const keyset = await sb.sf(['skit', 'list', '--remote', '--hub', server.origin, '--json']);
      assert.deepEqual(JSON.parse(keyset.stdout).skits.map((s: { id: string }) => s.id), ['a/one', 'a/two']);
      answer = (_m, path) => ({ body: JSON.stringify({ total: 2, skits: [skit(path.includes('offset=1') ? 'a/two' : 'a/one')] }) });
      const offset = await sb.sf(['skit', 'list', '--remote', '--hub', server.origin, '--json']);
      assert.deepEqual(JSON.parse(offset.stdout).skits.map((s: { id: string }) => s.id), ['a/one', 'a/two']);
    });
  });

  describe('D15: an HTTP error without a hub error document still comes with a hint', () => {
    it('500 as text/plain: SF_E_FETCH (exit 7) naming the status and path, with a hint, in both modes', async () => {
      answer = () => ({ status: 500, type: 'text/plain', body: 'Internal Server Error' });
      const human = await sb.sf(['skit', 'list', '--remote', '--hub', server.origin]);
      assert.equal(human.code, 7, human.stderr);
      assert.match(human.stderr, /error\[SF_E_FETCH\]: the hub answered 500 for \/api\/v1\/skits\?limit=200\n  hint: the hub at http:\/\/127\.0\.0\.1:\d+ failed; retry later/);
      const json = await sb.sf(['skit', 'pull', 'a/b', '--hub', server.origin, '--json']);
      assert.equal(json.code, 7);
      const { error } = JSON.parse(json.stderr);
      assert.deepEqual([error.code, error.data.status], ['SF_E_FETCH', 500]);
      assert.match(error.hint, /retry later/);
    });

    it('403 and 404 without a body get their own hints', async () => {
      answer = () => ({ status: 403, type: 'text/html', body: '<h1>nope</h1>' });
      assert.match((await sb.sf(['skit', 'pull', 'a/b', '--hub', server.origin])).stderr, /error\[SF_E_FORBIDDEN\].*\n  hint: the token lacks/);
      answer = () => ({ status: 404, type: 'text/html', body: '' });
      assert.match((await sb.sf(['skit', 'pull', 'a/b', '--hub', server.origin])).stderr, /error\[SF_E_NOT_FOUND\].*\n  hint: check the id/);
    });
  });

  describe('D14: the publish summary', () => {
    it('lines up the bundle, skill hashes, release and index in one column', async () => {
      const local = await localHashes();
      answer = () => ({
        status: 201,
        body: JSON.stringify({
          skit: { visibility: 'public' },
          release: { bundleHash: local.bundle, url: 'http://hub/r/acme/kit/2.0.0', wellKnownIndex: 'http://hub/r/acme/kit/2.0.0/index.json', skills: local.skills },
        }),
      });
      const r = await sb.sf(['skit', 'publish', sb.source, '--version', '2.0.0', '--hub', server.origin], { env: token });
      assert.equal(r.code, 0, r.stderr);
      const rows = r.stdout.split('\n').slice(1).filter(Boolean);
      assert.deepEqual(rows.map((l) => l.trim().split(/\s+/)[0]), ['bundle', ...local.skills.map((k) => k.id), 'release', 'index']);
      const column = rows.map((l) => l.search(/(sha256:|http:)/));
      assert.deepEqual(new Set(column).size, 1, r.stdout);
      assert.equal(column[0], '  acme/kit:summarize  '.length);
    });
  });

  describe('a hub that records other content than was sent: SF_E_HASH_MISMATCH (exit 5), since a release cannot be taken back', () => {
    /** A 201 that records `bundle` and `skills` for acme/kit@2.0.0. */
    const recording = (bundle: string, skills: { id: string; hash: string }[]) => () => ({
      status: 201,
      body: JSON.stringify({ skit: { visibility: 'public' }, release: { bundleHash: bundle, url: 'http://hub/r/acme/kit/2.0.0', wellKnownIndex: 'w', skills } }),
    });
    const other = `sha256:${'e'.repeat(64)}`;
    const publish = (...extra: string[]) => sb.sf(['skit', 'publish', sb.source, '--version', '2.0.0', '--hub', server.origin, ...extra], { env: token });

    it('a different bundle hash names both hashes with a hint, in human and --json modes', async () => {
      const local = await localHashes();
      answer = recording(other, local.skills);
      const human = await publish();
      assert.equal(human.code, 5, human.stderr);
      assert.ok(human.stderr.includes(`error[SF_E_HASH_MISMATCH]: the hub published acme/kit@2.0.0 with bundle ${other}, but this machine computed ${local.bundle}`), human.stderr);
      assert.match(human.stderr, /\n  hint: the release is on the hub and cannot be taken back: .*sf skit pull acme\/kit@2\.0\.0.*publish a new version/);
      assert.doesNotMatch(human.stdout, /published/);
      const json = await publish('--json');
      assert.equal(json.code, 5, json.stderr);
      assert.equal(json.stdout, '');
      const error = JSON.parse(json.stderr).error;
      assert.equal(error.code, 'SF_E_HASH_MISMATCH');
      assert.match(error.hint, /cannot be taken back/);
      assert.equal(error.data.recorded, other);
      assert.equal(error.data.computed, local.bundle);
      assert.deepEqual(error.data.skills, []);
    });

    it('the same bundle but a different or missing skill hash names the skill and both hashes', async () => {
      const local = await localHashes();
      const [first, ...rest] = local.skills;
      answer = recording(local.bundle, [{ id: first.id, hash: other }]);
      const r = await publish('--json');
      assert.equal(r.code, 5, r.stderr);
      const error = JSON.parse(r.stderr).error;
      assert.equal(error.code, 'SF_E_HASH_MISMATCH');
      assert.deepEqual(error.data.skills, [
        { id: first.id, recorded: other, computed: first.hash },
        ...rest.map((k) => ({ id: k.id, recorded: null, computed: k.hash })),
      ]);
      const human = await publish();
      assert.equal(human.code, 5, human.stderr);
      assert.ok(human.stderr.includes(`${first.id} as ${other}, but this machine computed ${first.hash}; ${rest[0].id} as missing`), human.stderr);
    });
  });

  describe('D17: --json leaves out what the hub answers with null', () => {
    /** Every path in `value` whose value is null. */
    const nullsIn = (value: unknown, at = ''): string[] =>
      value === null ? [at] : typeof value === 'object' ? Object.entries(value as object).flatMap(([k, v]) => nullsIn(v, `${at}.${k}`)) : [];

    it('sf skit list --remote --json and sf skit pull --json', async () => {
      const kit = await packSkit(twoSkillTree('alice/kit'));
      try {
        const release = {
          skitId: 'alice/kit', version: '1.0.0', bundleHash: kit.hashes!.bundle, publishedAt: '', url: '', deprecated: null, quarantined: null,
          archive: { url: '', sha256: createHash('sha256').update(kit.archive).digest('hex'), size: kit.archive.length },
          skills: kit.hashes!.skills.map((k) => ({ name: k.name, id: k.id, path: k.path, hash: k.hash, defaultEnabled: true, description: '' })),
        };
        const summary = { id: 'alice/kit', visibility: 'public', latestVersion: null, description: '', skills: [], deprecated: null, quarantined: null };
        answer = (_m, path) =>
          path.startsWith('/r/') ? { type: 'application/gzip', body: kit.archive }
          : path.startsWith('/api/v1/skits?') ? { body: JSON.stringify({ skits: [summary] }) }
          : { body: JSON.stringify(release) };
        const listed = await sb.sf(['skit', 'list', '--remote', '--hub', server.origin, '--json']);
        assert.equal(listed.code, 0, listed.stderr);
        assert.deepEqual(nullsIn(JSON.parse(listed.stdout)), []);
        assert.deepEqual(JSON.parse(listed.stdout).skits[0], { id: 'alice/kit', visibility: 'public', description: '', skills: [] });
        const pulled = await sb.sf(['skit', 'pull', 'alice/kit', '--hub', server.origin, '--out', `${sb.root}/pulled`, '--json']);
        assert.equal(pulled.code, 0, pulled.stderr);
        assert.deepEqual(nullsIn(JSON.parse(pulled.stdout)), []);
        assert.equal(JSON.parse(pulled.stdout).version, '1.0.0');
      } finally {
        await kit.cleanup();
      }
    });
  });
});
