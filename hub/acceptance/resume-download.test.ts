import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { HubClient } from '../../core/hub-client/client.js';
import { downloadRelease, fetchRelease } from '../../core/hub-client/release.js';
import { tempDir } from '../../test-support/index.js';
import { publishBigRelease } from '../test-support/big-release.js';
import { startHub, type RunningHub } from '../serve.js';

/**
 * A TCP proxy in front of the hub that breaks the first connection once `cutAfter` bytes of
 * answers went through it (a dropped mobile link, a proxy restart); later connections pass. It
 * records the status line of every answer it forwarded.
 */
async function cuttingProxy(target: URL, cutAfter: number): Promise<{ url: string; statuses: string[]; close(): Promise<void> }> {
  const statuses: string[] = [];
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let forwarded = 0;
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d: Buffer) => {
      const status = /^HTTP\/1\.1 \d{3}/.exec(d.toString('latin1', 0, 12))?.[0];
      if (status) statuses.push(status.slice(9));
      forwarded += d.length;
      if (!cut && forwarded > cutAfter) {
        cut = true;
        client.write(d.subarray(0, d.length - (forwarded - cutAfter)), () => {
          client.destroy();
          upstream.destroy();
        });
        return;
      }
      client.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    statuses,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe('a release download the network interrupts (real hub on 127.0.0.1)', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let hub: RunningHub;
  before(async function () {
    this.timeout(20_000);
    tmp = await tempDir('sf-hub-resume-');
    hub = await startHub({ dataDir: join(tmp.path, 'hub') });
    await publishBigRelease(hub);
  });
  after(async () => {
    await hub.close();
    await tmp.cleanup();
  });

  it('resumes where it broke (206 for the rest) and installs the verified release', async function () {
    this.timeout(20_000);
    const proxy = await cuttingProxy(new URL(hub.url), 150_000);
    try {
      const client = new HubClient({ url: proxy.url });
      const release = await fetchRelease(client, 'alice/kit', '1.0.0');
      const dest = join(tmp.path, 'out');
      // downloadRelease checks the bytes against the release's bundle hash before unpacking
      await downloadRelease(client, release, dest);
      assert.match(await readFile(join(dest, 'skills', 'review', 'references', 'data.txt'), 'utf8'), /^[A-Za-z0-9+/]{1000}/);
      assert.deepEqual(proxy.statuses, ['200', '200', '206'], 'metadata, the archive until the cut, then only the rest');
    } finally {
      await proxy.close();
    }
  });
});
