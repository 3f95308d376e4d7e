import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import { TelemetryService } from '../telemetry/service.js';

/** The retention sweeper against the normalization queue and a wall clock that was wrong. */

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

describe('hub raw-batch retention sweeper', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  const body = (id: string) => encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.event.id': id, 'agent.skill.activation.id': `act_${id}`, 'agent.skill.id': 'o/k:a' }, T0)]), 'protobuf');

  it('never deletes a raw batch whose queue item is not normalized yet', async () => {
    let now = T0;
    f = await telemetryFixture({ now: () => now });
    const u = f.user('alice');
    assert.equal((await f.post('logs', await body('evt_q'), { auth: u.device })).status, 200);
    assert.equal(f.storage.telemetry.queue.depth(), 1);
    now += 200 * DAY;
    assert.deepEqual(await f.telemetry.sweep(), { batches: 0, blobs: 0, orphanBlobs: 0, tempFiles: 0 });
    await f.telemetry.drain();
    assert.ok(f.telemetry.reader().getEvent(u.id, 'evt_q'), 'the acknowledged batch was normalized');
    assert.deepEqual(await f.telemetry.sweep(), { batches: 1, blobs: 1, orphanBlobs: 0, tempFiles: 0 }, 'normalized, it is swept as usual');
  });

  it('does not take a receipt stamped by a clock that was behind for an old one: the process that received it has not been up that long', async () => {
    let wall = T0 - 100 * DAY; // the wall clock is 100 days behind (an RTC reset before NTP)
    let mono = 0;
    f = await telemetryFixture({ now: () => wall, monotonicNow: () => mono });
    const u = f.user('alice');
    assert.equal((await f.post('logs', await body('evt_skew'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    wall = T0; // corrected seconds later
    mono += 5_000;
    assert.deepEqual(await f.telemetry.sweep(), { batches: 0, blobs: 0, orphanBlobs: 0, tempFiles: 0 });
    mono += 91 * DAY; // the hub has really been up past the free tier's 90 days
    wall += 91 * DAY;
    assert.deepEqual(await f.telemetry.sweep(), { batches: 1, blobs: 1, orphanBlobs: 0, tempFiles: 0 });
  });

  it('sweeps by the receipt stamp a batch an earlier run received', async () => {
    let wall = T0;
    const mono = 0;
    f = await telemetryFixture({ now: () => wall, monotonicNow: () => mono });
    const u = f.user('alice');
    assert.equal((await f.post('logs', await body('evt_old'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    wall = T0 + 91 * DAY;
    // a later run of the hub over the same storage: its own receipts start now
    const later = new TelemetryService(f.storage, { autoNormalize: false, now: () => wall, monotonicNow: () => mono });
    try {
      assert.deepEqual(await later.sweep(), { batches: 1, blobs: 1, orphanBlobs: 0, tempFiles: 0 });
    } finally {
      await later.stop();
    }
  });
});
