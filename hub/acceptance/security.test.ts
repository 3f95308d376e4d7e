import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { scaffoldSkit } from '../../core/skit/scaffold.js';
import { writeTree } from '../../test-support/index.js';
import { liveHub, ok, type LiveHub } from './support.js';

async function blobCount(dataDir: string): Promise<number> {
  let n = 0;
  for (const shard of await readdir(join(dataDir, 'blobs')).catch(() => [] as string[])) n += (await readdir(join(dataDir, 'blobs', shard))).length;
  return n;
}

/** A chunked PUT (no Content-Length) that keeps streaming until the server answers or closes. */
function streamUpload(url: string, token: string, totalBytes: number): Promise<{ status?: number; body: string; sent: number }> {
  return new Promise((resolve) => {
    let sent = 0;
    const req = request(url, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'transfer-encoding': 'chunked' } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body, sent }));
    });
    req.on('error', () => resolve({ body: '', sent })); // the server may close the socket after answering
    const chunk = Buffer.alloc(64 * 1024, 1);
    const pump = () => {
      while (sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('hub acceptance: limits and credentials over a real socket', function () {
  this.timeout(60_000);
  let live: LiveHub;
  before(async () => (live = await liveHub({ limits: { maxUploadBytes: 32 * 1024 } })));
  after(() => live?.close());

  it('an oversized publish is a 413 the CLI reports, with nothing stored', async () => {
    const author = await live.person('author');
    const token = live.token('alice');
    ok(await author.sf(['login', '--hub', live.hub.url], { input: token }), 'login');
    const kit = join(author.home, 'kit');
    // random bytes do not compress, so the archive is well over 32 KiB
    await writeTree(kit, { ...scaffoldSkit({ id: 'alice/kit' }), 'skills/review/assets/blob.bin': randomBytes(256 * 1024) });
    const r = await author.sf(['skit', 'publish', kit, '--version', '1.0.0']);
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /SF_E_LIMIT/);
    const streamed = await streamUpload(`${live.hub.url}/api/v1/skits/alice/kit/releases/1.0.0`, token, 8 * 1024 * 1024);
    assert.equal(streamed.status, 413);
    assert.equal(JSON.parse(streamed.body).error.code, 'SF_E_LIMIT');
    assert.equal(live.hub.storage.registry.getSkit('alice/kit'), undefined);
    assert.equal(await blobCount(live.dataDir), 0);
  });

  it('a revoked token stops working for the CLI at once', async () => {
    const author = await live.person('author2');
    const token = live.token('dana');
    ok(await author.sf(['login', '--hub', live.hub.url], { input: token }), 'login');
    const kit = join(author.home, 'kit');
    await writeTree(kit, scaffoldSkit({ id: 'dana/kit' }));
    ok(await author.sf(['skit', 'publish', kit, '--version', '1.0.0', '--visibility', 'private']), 'publish');
    ok(await author.sf(['skit', 'pull', 'dana/kit', '--out', join(author.home, 'one')]), 'pull');
    const record = live.hub.storage.tokens.listForUser(live.hub.storage.accounts.findOwner('dana')!.id)[0];
    live.hub.storage.tokens.revoke(record.id, new Date().toISOString());
    const r = await author.sf(['skit', 'pull', 'dana/kit', '--out', join(author.home, 'two')]);
    assert.equal(r.code, 8);
    assert.match(r.stderr, /SF_E_AUTH/);
    assert.ok(!r.stderr.includes(token));
  });

  it('a private SKIT looks missing to another user of the CLI', async () => {
    const other = await live.person('other');
    ok(await other.sf(['login', '--hub', live.hub.url], { input: live.token('erin', ['registry:read']) }), 'login');
    const hidden = await other.sf(['skit', 'pull', 'dana/kit', '--out', join(other.home, 'x')]);
    const missing = await other.sf(['skit', 'pull', 'dana/kot', '--out', join(other.home, 'x')]);
    assert.equal(hidden.code, 3);
    assert.equal(hidden.stderr.replaceAll('dana/kit', 'dana/kot'), missing.stderr);
  });

  it('sf login refuses to send a token over plain http beyond this machine, and stores nothing', async () => {
    const person = await live.person('plain-http');
    const r = await person.sf(['login', '--hub', 'http://hub.example.com'], { input: live.token('frank') });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /error\[SF_E_USAGE\]: refusing to send a hub credential over plain http to hub\.example\.com/);
    assert.match(r.stderr, /hint: use https:\/\/hub\.example\.com, or set SF_HUB_ALLOW_HTTP=1/);
    assert.deepEqual(await readdir(person.home).then((names) => names.filter((n) => n === '.sf')), []);
    // the hub on this machine is plain http too, and that is fine
    ok(await person.sf(['login', '--hub', live.hub.url], { input: live.token('frank') }), 'login to 127.0.0.1');
  });

  it('sf skit publish refuses files that look like secrets before uploading, unless --allow-secrets', async () => {
    const author = await live.person('secrets');
    ok(await author.sf(['login', '--hub', live.hub.url], { input: live.token('gina') }), 'login');
    const kit = join(author.home, 'kit');
    await writeTree(kit, { ...scaffoldSkit({ id: 'gina/kit' }), '.env': 'OPENAI_API_KEY=sk-live\n', 'shared/id_rsa': 'PRIVATE' });
    const refused = await author.sf(['skit', 'publish', kit, '--version', '1.0.0']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /warning +SKIT_LIKELY_SECRET +\.env looks like a secret/);
    assert.match(refused.stderr, /error\[SF_E_VALIDATION\]: refusing to publish \.env, shared\/id_rsa: they look like a secret/);
    assert.equal(live.hub.storage.registry.getSkit('gina/kit'), undefined, 'nothing reached the hub');
    ok(await author.sf(['skit', 'publish', kit, '--version', '1.0.0', '--allow-secrets']), 'publish with --allow-secrets');
    assert.ok(live.hub.storage.registry.getSkit('gina/kit'));
  });
});
