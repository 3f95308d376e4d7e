import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

const withoutVersion = (s: unknown) => JSON.parse(JSON.stringify(s, (k, v) => (k === 'normalizerVersion' ? undefined : v)));

describe('hub ingest: replay detection is per device', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it('a byte-identical batch from a second device of the account is a delivery of that device, not a replay', async () => {
    f = await telemetryFixture();
    const laptop = f.user('twodev');
    const desktop = f.user('twodev');
    assert.equal(laptop.id, desktop.id);
    assert.notEqual(laptop.deviceId, desktop.deviceId);
    const body = await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selection', { 'agent.skill.activation.id': 'act_same' })]), 'protobuf');

    for (const auth of [laptop.device, desktop.device, desktop.device]) assert.equal((await f.post('logs', body, { auth })).status, 200);

    const batches = [...f.storage.telemetry.rawBatches.listByReceipt()];
    assert.deepEqual(batches.map((b) => b.deviceId).sort(), [laptop.deviceId, desktop.deviceId].sort(), 'one raw batch per device; the third delivery was the desktop replaying its own');
    assert.equal(new Set(batches.map((b) => b.sha256)).size, 1, 'both records point at one content-addressed blob');
    const health = f.storage.telemetry.health.list(laptop.id);
    const desk = health.find((r) => r.deviceId === desktop.deviceId);
    assert.equal(desk?.batches, 1);
    assert.equal(desk?.replays, 1);
    assert.equal(health.find((r) => r.deviceId === laptop.deviceId)?.replays, undefined);

    // a rebuild from both devices' raw batches reproduces the live projections
    await f.telemetry.drain();
    const reader = () => f.telemetry.reader();
    const snapshot = () => withoutVersion({ events: [...reader().allEvents()], activations: [...reader().allActivations()], rollups: [...reader().allRollups()] });
    const before = snapshot();
    const rebuilt = await f.telemetry.rebuild('1.1.0-per-device');
    assert.equal(rebuilt.missing, 0);
    assert.deepStrictEqual(snapshot(), before);
  });
});
