import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { destinationProblem, type DestinationStatus } from './status.js';
import { ObserverStore } from './store.js';

/** Status after a destination recovers: what was wrong before a later delivery is history. */
describe('observer status: a destination that recovered', () => {
  it('a delivery clears the last error; a canary that failed before it is not reported', async () => {
    const tmp = await tempDir();
    try {
      const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
      store.enqueue('d', { signal: 'logs', body: '{}', records: 2 }, 100);
      store.setCanary('d', { ok: false, at: Date.now() - 1000, latencyMs: 3, status: 503, error: 'HTTP 503' });
      const head = store.head('d')!;
      store.retry('d', head.key, Date.now(), 'HTTP 503');
      const failing: DestinationStatus = { name: 'd', type: 'otlp', queued: store.size('d'), ...store.stats('d') };
      assert.equal(destinationProblem(failing), 'fails to deliver: HTTP 503');
      store.ack('d', head.key);
      const recovered: DestinationStatus = { name: 'd', type: 'otlp', queued: store.size('d'), ...store.stats('d') };
      await store.close();
      assert.equal(recovered.lastError, undefined, 'the last error is gone once a batch was delivered');
      assert.equal(destinationProblem(recovered), undefined, 'the failed canary is older than the delivery');
      assert.equal(destinationProblem({ ...recovered, canary: { ok: false, at: Date.now() + 1000, latencyMs: 3, error: 'ECONNREFUSED' } }), 'fails its canary: ECONNREFUSED');
    } finally {
      await tmp.cleanup();
    }
  });
});
