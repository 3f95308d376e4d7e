import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { destinationProblem, destinationState, type DestinationStatus } from './status.js';
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

/** The state column of `sf observe status`: a destination that gave records up is never `ok`. */
describe('observer status: the state of a destination', () => {
  it('is the problem it has now, else what it dropped (as doctor says it), else ok once a canary ran', async () => {
    const tmp = await tempDir();
    try {
      const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
      const status = (): DestinationStatus => ({ name: 'd', type: 'hub', queued: store.size('d'), ...store.stats('d') });
      assert.equal(destinationState(status()), '-', 'nothing known yet');
      store.setCanary('d', { ok: true, at: Date.now(), latencyMs: 3 });
      assert.equal(destinationState(status()), 'ok');
      // the hub keeps part of a request and rejects the rest (partial success), then a queue overflows
      store.enqueue('d', { signal: 'logs', body: '{}', records: 10 }, 100);
      store.ack('d', store.head('d')!.key, { rejected: 4 });
      for (let i = 0; i < 3; i++) store.enqueue('d', { signal: 'logs', body: '{}', records: 2 }, 4);
      assert.equal(destinationState(status()), 'SF_OBSERVE_DROPPED: rejected 4, queue_full 2');
      store.retry('d', store.head('d')!.key, Date.now(), 'HTTP 503');
      assert.equal(destinationState(status()), 'fails to deliver: HTTP 503', 'a failure now outranks past drops');
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });
});
