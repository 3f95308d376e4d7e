import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

describe('hub usage rollups: distinct sessions', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  const activation = (eventId: string, sessionId: string) =>
    encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.event.id': eventId, 'agent.skill.activation.id': 'act_1', 'agent.skill.id': 'o/k:a', 'session.id': sessionId }, T0)]), 'protobuf');

  it('counts a session id used on two devices as two sessions, and one device\'s session once', async () => {
    f = await telemetryFixture({ now: () => T0 });
    const laptop = f.user('alice');
    const desktop = f.user('alice');
    assert.equal((await f.post('logs', await activation('evt_laptop', 'sess_shared'), { auth: laptop.device })).status, 200);
    assert.equal((await f.post('logs', await activation('evt_desktop', 'sess_shared'), { auth: desktop.device })).status, 200);
    await f.telemetry.drain();
    const [row] = [...f.telemetry.reader().allRollups()];
    assert.equal(row.activations, 2, 'the same activation id on two devices is two activations');
    assert.equal(row.sessions, 2, 'and their sessions are two as well');

    // a second activation in the laptop's session is still one session of the laptop
    const again = encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'evt_laptop_2', 'agent.skill.activation.id': 'act_2', 'agent.skill.id': 'o/k:a', 'session.id': 'sess_shared' }, T0)]), 'protobuf');
    assert.equal((await f.post('logs', await again, { auth: laptop.device })).status, 200);
    await f.telemetry.drain();
    const [after] = [...f.telemetry.reader().allRollups()];
    assert.equal(after.activations, 3);
    assert.equal(after.sessions, 2);
  });
});
