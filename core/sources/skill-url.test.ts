import { strict as assert } from 'node:assert';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { skillMd } from '../../test-support/git.js';
import { serveRoutes, startServer, type TestServer } from '../../test-support/http-server.js';
import { resolveSource } from './index.js';

const SECRET = 'hunter2-very-secret';
const BODY = skillMd('pdf-tools', 'Work with PDF files.') + 'Exact bytes \u00e9.\n';

describe('core/sources direct http(s) SKILL.md URLs', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let other: TestServer;
  let n = 0;
  const work = () => join(root, 'work', String(n++));

  before(async () => {
    ({ path: root, cleanup } = await tempDir('sf-src-skillurl-'));
    other = await serveRoutes({ '/SKILL.md': { body: BODY } });
    const loop: Record<string, { status: number; headers: Record<string, string> }> = {};
    for (let i = 0; i < 10; i++) loop[`/loop/${i}/SKILL.md`] = { status: 302, headers: { location: `/loop/${i + 1}/SKILL.md` } };
    server = await serveRoutes({
      '/s/pdf/SKILL.md': { body: BODY, headers: { 'content-type': 'text/markdown' } },
      '/s/moved/SKILL.md': { status: 301, headers: { location: '/s/pdf/SKILL.md' } },
      '/s/away/SKILL.md': { status: 302, headers: { location: `${other.origin}/SKILL.md` } },
      '/s/plain/SKILL.md': { body: '# no frontmatter\n' },
      '/s/evil/SKILL.md': { body: skillMd('../../escape') },
      '/s/page': { body: '<html>not a skill</html>' },
      '/s/big/SKILL.md': { body: BODY + 'x'.repeat(5000) },
      ...loop,
    });
  });
  after(async () => {
    await server.close();
    await other.close();
    await cleanup();
  });

  it('materializes <name>/SKILL.md from the frontmatter name, byte for byte', async () => {
    const r = await resolveSource(`${server.origin}/s/pdf/SKILL.md`, { cwd: root, workDir: work() });
    assert.equal(r.kind, 'skill-url');
    assert.deepEqual(await readdir(r.dir), ['pdf-tools']);
    assert.equal(await readFile(join(r.dir, 'pdf-tools', 'SKILL.md'), 'utf8'), BODY);
    assert.deepEqual(r.descriptor, { skit: 1, id: r.provisionalId, skills: [{ name: 'pdf-tools', path: 'pdf-tools', default_enabled: true }] });
    assert.equal(r.canonical, `${server.origin}/s/pdf/SKILL.md`);
  });

  it('sends URL credentials as Basic auth and keeps them out of the result', async () => {
    const before = server.requests.length;
    const url = `http://alice:${SECRET}@${server.origin.slice(7)}/s/pdf/SKILL.md?token=${SECRET}#frag`;
    const r = await resolveSource(url, { cwd: root, workDir: work() });
    const seen = server.requests[before];
    assert.equal(seen.headers.authorization, 'Basic ' + Buffer.from(`alice:${SECRET}`).toString('base64'));
    assert.ok(!JSON.stringify(r).includes(SECRET));
    assert.equal(r.canonical, `${server.origin}/s/pdf/SKILL.md`);
    const plain = await resolveSource(`${server.origin}/s/pdf/SKILL.md`, { cwd: root, workDir: work() });
    assert.equal(r.fingerprint, plain.fingerprint);
  });

  it('follows a redirect, drops credentials across origins, and caps the number of redirects', async () => {
    const moved = await resolveSource(`${server.origin}/s/moved/SKILL.md`, { cwd: root, workDir: work() });
    assert.equal(moved.descriptor?.skills[0].name, 'pdf-tools');
    const before = other.requests.length;
    await resolveSource(`http://alice:${SECRET}@${server.origin.slice(7)}/s/away/SKILL.md`, { cwd: root, workDir: work() });
    assert.equal(other.requests[before].headers.authorization, undefined, 'no credentials sent to another origin');
    await assert.rejects(
      resolveSource(`${server.origin}/loop/0/SKILL.md`, { cwd: root, workDir: work() }),
      (e) => isSfError(e, 'SF_E_FETCH') && /redirected more than 5 times/.test(e.message),
    );
  });

  it('reports HTTP failures as SF_E_FETCH with the status and a redacted URL', async () => {
    await assert.rejects(resolveSource(`http://alice:${SECRET}@${server.origin.slice(7)}/s/none/SKILL.md`, { cwd: root, workDir: work() }), (e) => {
      assert.ok(isSfError(e, 'SF_E_FETCH'));
      assert.equal(e.data?.status, 404);
      assert.ok(!JSON.stringify({ m: e.message, d: e.data }).includes(SECRET), e.message);
      assert.match(e.message, /HTTP 404/);
      return true;
    });
  });

  it('enforces the size limit and the timeout', async () => {
    await assert.rejects(
      resolveSource(`${server.origin}/s/big/SKILL.md`, { cwd: root, workDir: work(), limits: { maxSkillBytes: 1024 } }),
      (e) => isSfError(e, 'SF_E_LIMIT'),
    );
    // a chunked body without content-length is cut off while streaming
    const chunked = await startServer((_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) res.write('y'.repeat(512));
      res.end();
    });
    const hanging = await startServer(() => undefined);
    try {
      await assert.rejects(
        resolveSource(`${chunked.origin}/SKILL.md`, { cwd: root, workDir: work(), limits: { maxSkillBytes: 1024 } }),
        (e) => isSfError(e, 'SF_E_LIMIT'),
      );
      await assert.rejects(
        resolveSource(`${hanging.origin}/SKILL.md`, { cwd: root, workDir: work(), limits: { timeoutMs: 200 } }),
        (e) => isSfError(e, 'SF_E_FETCH') && /timed out/.test(e.message),
      );
    } finally {
      await chunked.close();
      await hanging.close();
    }
  });

  it('refuses a body without a name, an unsafe name, and a page that is neither skill nor archive', async () => {
    await assert.rejects(resolveSource(`${server.origin}/s/plain/SKILL.md`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_SOURCE'));
    await assert.rejects(resolveSource(`${server.origin}/s/evil/SKILL.md`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_UNSAFE_PATH'));
    await assert.rejects(resolveSource(`${server.origin}/s/page`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_SOURCE'));
  });
});
