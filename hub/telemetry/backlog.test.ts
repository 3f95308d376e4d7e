import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

/**
 * The per-account backlog count (what 429/503 overload answers and the health view read) against
 * the race it was written for: the normalizer can take a batch off the queue, and report it,
 * before the ingest path has even returned from committing that queue item. The count must come
 * back to zero, never stay at one for good.
 */
describe('hub telemetry backlog count (hub/telemetry/service)', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  it('returns to zero when the normalizer dequeues a batch before ingest sees its queue item committed', async () => {
    f = await telemetryFixture({ autoNormalize: true });
    const fixture = f;
    const user = fixture.user('backlog');
    const rawBatches = fixture.storage.telemetry.rawBatches;
    const admit = rawBatches.admit.bind(rawBatches);
    const seen: { queuedWhileCommitted: number; depthAfterNormalizing: number }[] = [];
    // deterministically the worst order: once the item is committed, the normalizer runs and
    // reports it before admit returns to the ingest path
    rawBatches.admit = async (record, alongside) => {
      const result = await admit(record, alongside);
      const queuedWhileCommitted = fixture.telemetry.queued();
      await fixture.telemetry.drain();
      seen.push({ queuedWhileCommitted, depthAfterNormalizing: fixture.storage.telemetry.queue.depth() });
      return result;
    };

    for (let i = 0; i < 3; i++) {
      const body = await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected'), skillRecord('agent.skill.loaded')]), 'protobuf');
      assert.equal((await fixture.post('logs', body, { auth: user.device })).status, 200);
    }
    await fixture.telemetry.drain();

    assert.deepEqual(seen, [1, 2, 3].map(() => ({ queuedWhileCommitted: 1, depthAfterNormalizing: 0 })), 'each batch was counted before its commit and normalized before admit returned');
    assert.equal(fixture.telemetry.queued(), 0);
    assert.equal(fixture.telemetry.queuedFor(user.id), 0);
  });
});
