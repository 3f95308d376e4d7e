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
  it('reads no SKIT off an unresolved skill id (`not_installed:<name>`, `ambiguous:<name>`): a resolution label is no package', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const unresolved = (id: string, act: string, skillId: string, resolution: string) =>
      skillRecord('agent.skill.loaded', { 'agent.skill.event.id': id, 'agent.skill.activation.id': act, 'agent.skill.id': skillId, 'agent.skill.library.resolution': resolution });
    const body = await encodeOtlpRequest(logsRequest([
      unresolved('e1', 'a1', 'not_installed:my-own', 'not_installed'),
      unresolved('e2', 'a2', 'ambiguous:review', 'ambiguous'),
      unresolved('e3', 'a3', 'name_redacted:unknown', 'name_redacted'),
      // a registry-valid provisional SKIT still gives its SKIT
      skillRecord('agent.skill.loaded', { 'agent.skill.event.id': 'e4', 'agent.skill.activation.id': 'a4', 'agent.skill.id': 'provisional/0123456789abcdef:gs' }),
    ]), 'protobuf');
    assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    const ids = ['e1', 'e2', 'e3', 'e4'].map((id) => { const e = r.getEvent(u.id, id)!; return [e.skillId, e.packageId]; });
    assert.deepEqual(ids, [['not_installed:my-own', undefined], ['ambiguous:review', undefined], ['name_redacted:unknown', undefined], ['provisional/0123456789abcdef:gs', 'provisional/0123456789abcdef']]);
    const rollups = [...r.allRollups()].map((x) => [x.packageId, x.skillId, x.activations]).sort();
    assert.deepEqual(rollups, [['', 'ambiguous:review', 1], ['', 'name_redacted:unknown', 1], ['', 'not_installed:my-own', 1], ['provisional/0123456789abcdef', 'provisional/0123456789abcdef:gs', 1]], 'no rollup under a made-up SKIT');
    for (const fake of ['not_installed', 'ambiguous']) {
      assert.equal(r.rollups(fake, undefined, '2000-01-01', '9999-12-31').length, 0, `no usage under SKIT ${fake}`);
    }
  });
});
