import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { get } from 'node:http';
import { tempDir } from '../../test-support/index.js';
import { publishBigRelease, type PublishedArchive } from '../test-support/big-release.js';
import { startHub, type RunningHub } from '../serve.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** GETs `url` and stops reading (closes the connection) once `atLeast` bytes arrived: an interrupted download. */
function interruptedGet(url: string, atLeast: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const req = get(url, (res) => {
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        got += chunk.length;
        if (got >= atLeast) {
          req.destroy();
          resolve(Buffer.concat(chunks));
        }
      });
      res.on('end', () => reject(new Error(`the whole body (${got} bytes) arrived before the interruption`)));
    });
    req.on('error', (e) => (got >= atLeast ? undefined : reject(e)));
  });
}

describe('hub downloads: HTTP Range (RFC 9110 §14)', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let hub: RunningHub;
  let archive: PublishedArchive;
  let etag: string;
  let lastModified: string;
  let url: string;
  const range = (value: string, headers: Record<string, string> = {}, method = 'GET') => fetch(url, { method, headers: { range: value, ...headers } });

  before(async () => {
    tmp = await tempDir('sf-hub-range-');
    hub = await startHub({ dataDir: tmp.path });
    archive = await publishBigRelease(hub);
    url = `${hub.url}/r/alice/kit/1.0.0.tgz`;
    const full = await fetch(url);
    etag = full.headers.get('etag')!;
    lastModified = full.headers.get('last-modified')!;
  });
  after(async () => {
    await hub.close();
    await tmp.cleanup();
  });

  it('a full answer says Accept-Ranges: bytes', async () => {
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(res.headers.get('content-length'), String(archive.size));
    assert.equal(sha256(new Uint8Array(await res.arrayBuffer())), archive.sha256);
  });

  it('resumes an interrupted download (Range + If-Range) to the exact bytes and hash', async () => {
    const head = await interruptedGet(url, 64 * 1024);
    assert.ok(head.length < archive.size, `interrupted after ${head.length} bytes`);
    const rest = await range(`bytes=${head.length}-`, { 'if-range': etag });
    assert.equal(rest.status, 206);
    assert.equal(rest.headers.get('content-range'), `bytes ${head.length}-${archive.size - 1}/${archive.size}`);
    assert.equal(rest.headers.get('content-length'), String(archive.size - head.length));
    assert.equal(rest.headers.get('etag'), etag);
    assert.equal(rest.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(rest.headers.get('content-type'), 'application/gzip');
    const whole = Buffer.concat([head, Buffer.from(await rest.arrayBuffer())]);
    assert.equal(whole.length, archive.size);
    assert.equal(sha256(whole), archive.sha256);
  });

  it('answers first-last, first- and -suffix ranges, a last past the end up to the end', async () => {
    const full = Buffer.from(await (await fetch(url)).arrayBuffer());
    const cases: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      ['bytes=100-199', 100, 199],
      [`bytes=${archive.size - 10}-`, archive.size - 10, archive.size - 1],
      ['bytes=-100', archive.size - 100, archive.size - 1],
      [`bytes=-${archive.size + 5}`, 0, archive.size - 1],
      [`bytes=5-${archive.size * 2}`, 5, archive.size - 1],
      ['BYTES=7-9', 7, 9],
    ];
    for (const [value, first, last] of cases) {
      const res = await range(value);
      assert.equal(res.status, 206, value);
      assert.equal(res.headers.get('content-range'), `bytes ${first}-${last}/${archive.size}`, value);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), full.subarray(first, last + 1), value);
    }
  });

  it('answers 416 with Content-Range: bytes */size for an unsatisfiable range', async () => {
    for (const value of [`bytes=${archive.size}-`, `bytes=${archive.size + 100}-${archive.size + 200}`, 'bytes=-0']) {
      const res = await range(value);
      assert.equal(res.status, 416, value);
      assert.equal(res.headers.get('content-range'), `bytes */${archive.size}`, value);
      const { error } = await res.json();
      assert.equal(error.code, 'SF_E_USAGE');
      assert.match(error.message, new RegExp(`${archive.size} bytes`));
      assert.ok(error.hint, value);
    }
  });

  it('If-Range that does not match (other or weak ETag, other date) sends the whole file', async () => {
    for (const ifRange of ['"sha256:0000"', `W/${etag}`, new Date(Date.parse(lastModified) - 60_000).toUTCString(), 'not a date']) {
      const res = await range('bytes=0-9', { 'if-range': ifRange });
      assert.equal(res.status, 200, ifRange);
      assert.equal(res.headers.get('content-length'), String(archive.size), ifRange);
      await res.arrayBuffer();
    }
    const byDate = await range('bytes=0-9', { 'if-range': lastModified });
    assert.equal(byDate.status, 206, 'the Last-Modified date matches');
    assert.equal((await byDate.arrayBuffer()).byteLength, 10);
  });

  it('ignores several ranges and malformed Range headers: the whole file, 200', async () => {
    for (const value of ['bytes=0-1,5-9', 'bytes=0-1, -5', 'bytes=abc', 'bytes=9-5', 'items=0-9', 'bytes=', 'bytes=-', '0-9', 'bytes=1.5-3', 'bytes = 7 - 9']) {
      const res = await range(value);
      assert.equal(res.status, 200, value);
      assert.equal(res.headers.get('content-length'), String(archive.size), value);
      assert.equal(res.headers.get('content-range'), null, value);
      await res.arrayBuffer();
    }
  });

  it('a matching If-None-Match is a 304 before any range is looked at', async () => {
    const res = await range('bytes=0-9', { 'if-none-match': etag });
    assert.equal(res.status, 304);
    assert.equal(res.headers.get('content-range'), null);
  });

  it('HEAD ignores Range (only GET has ranges) and answers the full answer\'s headers', async () => {
    const res = await range('bytes=0-9', {}, 'HEAD');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(res.headers.get('content-length'), String(archive.size));
    assert.equal(res.headers.get('etag'), etag);
    assert.equal((await res.arrayBuffer()).byteLength, 0);
  });

  it('ranges work on every blob download: a skill file and a release file', async () => {
    for (const path of ['/r/alice/kit/1.0.0/skills/review/SKILL.md', '/api/v1/skits/alice/kit/releases/1.0.0/files/skills/review/SKILL.md']) {
      const res = await fetch(`${hub.url}${path}`, { headers: { range: 'bytes=0-2' } });
      assert.equal(res.status, 206, path);
      assert.equal(await res.text(), '---', path);
    }
  });
});
