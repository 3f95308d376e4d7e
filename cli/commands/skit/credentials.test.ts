import { strict as assert } from 'node:assert';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../../test-support/http-server.js';
import { installSandbox, skillMarkdown, type InstallSandbox } from '../../../test-support/skit-install.js';

const SECRET = 'pa55-w0rd-9f2c';

/** Every file below `dir`, read as bytes (the LMDB file included). */
async function allBytes(dir: string): Promise<{ path: string; bytes: Buffer }[]> {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of await readdir(dir)) {
    const p = join(dir, name);
    const st = await stat(p);
    if (st.isDirectory()) out.push(...(await allBytes(p)));
    else if (st.isFile()) out.push({ path: p, bytes: await readFile(p) });
  }
  return out;
}

describe('credentials in a source URL are used, never stored or printed', () => {
  let sb: InstallSandbox;
  let server: TestServer;
  beforeEach(async () => {
    sb = await installSandbox();
    server = await startServer((req, res) => {
      const expected = 'Basic ' + Buffer.from(`alice:${SECRET}`).toString('base64');
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="kits"' });
        res.end('auth required');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/markdown' });
      res.end(skillMarkdown('hello'));
    });
  });
  afterEach(async () => {
    await server.close();
    await sb.cleanup();
  });

  it('installs from http://user:pass@127.0.0.1/... and keeps the password out of the library, store, outbox and output', async () => {
    const url = `http://alice:${SECRET}@${server.origin.slice('http://'.length)}/skills/hello/SKILL.md`;
    const r = await sb.sf(['add', 'skit', url, '--agent', 'windsurf', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(server.requests.some((q) => q.headers.authorization), 'the credentials were used');
    const [rec] = await sb.list();
    assert.match(rec.skitId, /^provisional\/[0-9a-f]{16}$/);
    assert.equal(rec.source.canonical, `${server.origin}/skills/hello/SKILL.md`);
    for (const text of [r.stdout, r.stderr]) assert.ok(!text.includes(SECRET) && !text.includes('alice:'), 'not printed');
    const files = await allBytes(sb.sfHome);
    assert.ok(files.some((f) => f.path.endsWith('library.lmdb')));
    assert.ok(files.some((f) => f.path.endsWith('outbox.jsonl')));
    for (const f of files) {
      assert.equal(f.bytes.includes(SECRET), false, `${f.path} holds the password`);
      assert.equal(f.bytes.includes(Buffer.from(`alice:${SECRET}`).toString('base64')), false, `${f.path} holds the auth header`);
    }
    const listed = await sb.sf(['skit', 'list', '--json']);
    assert.ok(!listed.stdout.includes(SECRET));
  });
});
