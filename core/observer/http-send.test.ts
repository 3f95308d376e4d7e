import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { DeliveryWorker } from './delivery.js';
import { sendOtlp } from './http-send.js';
import { ObserverStore } from './store.js';

/**
 * A destination that answers 200 and then trickles its body one byte at a time never goes idle,
 * so only a deadline on the whole exchange ends the attempt. Real HTTP servers on 127.0.0.1.
 */

async function trickler(): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const open = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    req.resume();
    open.add(res);
    res.writeHead(200, { 'content-type': 'application/json' });
    const t = setInterval(() => res.write(' '), 100);
    timers.add(t);
    res.on('close', () => clearInterval(t));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: async () => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('observer delivery: a destination that trickles its response', function () {
  this.timeout(20_000);

  it('gives up on the attempt at the total deadline, although bytes keep coming', async () => {
    const dest = await trickler();
    try {
      const t0 = Date.now();
      const res = await sendOtlp({ url: `${dest.url}/v1/logs`, body: Buffer.from('{}'), contentType: 'application/json', headers: {}, timeoutMs: 600, signal: 'logs' });
      const took = Date.now() - t0;
      assert.equal(res.kind, 'retry');
      assert.match((res as { error: string }).error, /within 600 ms/);
      assert.ok(took < 3000, `took ${took} ms`);
    } finally {
      await dest.close();
    }
  });

  it('a worker stops promptly while its attempt is in flight, leaving the item queued', async () => {
    const dest = await trickler();
    const tmp = await tempDir('sf-trickle-');
    const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
    try {
      const worker = new DeliveryWorker({ kind: 'http', name: 'slow', type: 'otlp', endpoint: dest.url, protocol: 'json', headers: async () => ({}) }, store, { maxAgeMs: 3600_000 });
      store.enqueue('slow', { signal: 'logs', body: '{}', records: 2 }, 100);
      worker.start();
      await new Promise((r) => setTimeout(r, 300));
      const t0 = Date.now();
      await worker.stop();
      assert.ok(Date.now() - t0 < 2000, `stop took ${Date.now() - t0} ms`);
      assert.deepEqual(store.size('slow'), { items: 1, records: 2 }, 'the item is still queued for the next start');
      assert.equal(store.stats('slow').delivered, 0);
    } finally {
      await store.close();
      await tmp.cleanup();
      await dest.close();
    }
  });
});
