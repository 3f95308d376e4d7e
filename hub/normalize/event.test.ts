import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

/** Identity fields of observation events as the normalizer stores them. */
describe('hub normalizer event identities', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it('stores registry-valid skill ids up to the schema maxima as written and reads the SKIT off them', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const skit = `acme/code-quality-${'x'.repeat(47)}`; // a 60-character SKIT name
    const skill = `${skit}:maintainability-${'y'.repeat(48)}`; // a 64-character skill name
    const longest = `${'o'.repeat(64)}/${'n'.repeat(64)}:${'s'.repeat(64)}`; // 194 characters
    const body = await encodeOtlpRequest(logsRequest([
      skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'e1', 'agent.skill.activation.id': 'a1', 'agent.skill.id': skill }),
      skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'e2', 'agent.skill.activation.id': 'a2', 'agent.skill.id': skill, 'agent.skill.package.id': skit }),
      skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'e3', 'agent.skill.activation.id': 'a3', 'agent.skill.id': longest }),
    ]), 'protobuf');
    assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    const ids = ['e1', 'e2', 'e3'].map((id) => { const e = r.getEvent(u.id, id)!; return [e.skillId, e.packageId]; });
    assert.deepEqual(ids, [[skill, skit], [skill, skit], [longest, longest.slice(0, 129)]]);
    const rollups = [...r.allRollups()].map((x) => [x.packageId, x.skillId, x.activations]).sort();
    assert.deepEqual(rollups, [[skit, skill, 2], [longest.slice(0, 129), longest, 1]]);
  });
});
