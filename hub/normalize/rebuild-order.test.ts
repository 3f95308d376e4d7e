import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

const withoutVersion = (s: unknown) => JSON.parse(JSON.stringify(s, (k, v) => (k === 'normalizerVersion' ? undefined : v)));

/**
 * A rebuild applies the raw batches in the order the live normalizer did (the queue's admission
 * sequence), not in receipt-time order: receipt stamps are wall-clock times, taken before
 * admission, and a clock stepped back (or two requests stamped and admitted in opposite orders)
 * makes the two orders differ. Where an event id repeats with other content, the first applied
 * wins, so the order decides the rows.
 */
describe('hub normalizer: rebuild order (hub/normalize/rebuild)', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  it('reproduces the live rows when the receipt clock went backwards between two batches', async () => {
    let clock = Date.now() + 60_000;
    f = await telemetryFixture({ now: () => clock });
    const user = f.user('stepped-clock');
    const sourceTime = Date.now() - 60 * 60 * 1000;
    for (const lines of [1, 2]) {
      // the same device sends one event id twice with different content (a collector retrying a rebuilt record)
      const record = skillRecord('agent.change.summary', { 'agent.skill.event.id': 'evt_same', 'agent.change.boundary': 'turn', 'agent.change.line.added.count': lines }, sourceTime);
      assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest([record]), 'protobuf'), { auth: user.device })).status, 200);
      clock -= 60_000; // the wall clock is corrected back a minute
    }
    const batches = [...f.storage.telemetry.rawBatches.listByReceipt()];
    assert.ok(batches[0].receiptSeq! > batches[1].receiptSeq!, 'receipt-time order is not admission order here');
    await f.telemetry.drain();
    const lines = () => f!.telemetry.reader().getChange(user.id, 'evt_same', user.deviceId)?.counts['line.added'];
    const live = withoutVersion([...f.telemetry.reader().allEvents()]);
    assert.equal(lines(), 1, 'live, the first admitted batch wins');

    await f.telemetry.rebuild('1.1.0-order-test');
    assert.equal(lines(), 1);
    assert.deepStrictEqual(withoutVersion([...f.telemetry.reader().allEvents()]), live);
  });
});
