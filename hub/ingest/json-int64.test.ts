import assert from 'node:assert/strict';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';

const T = '1786233600448123457'; // 2026-08-09T00:00:00.448123457Z: beyond 2^53, a double reads it as ...472

describe('hub ingest: OTLP/JSON int64 number literals', () => {
  let f: TelemetryFixture;
  afterEach(async () => f.cleanup());

  it('stores a time and an intValue sent as number literals exactly, as their string forms are', async () => {
    f = await telemetryFixture({ now: () => Date.UTC(2026, 7, 9, 1) });
    const u = f.user('alice');
    const record = skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'evt_lit', 'agent.skill.activation.id': 'act_lit', 'agent.skill.id': 'o/k:a', 'agent.skill.instructions.expected_byte_count': 1 });
    const json = Buffer.from(await encodeOtlpRequest(logsRequest([record]), 'json')).toString('utf8');
    const literal = json.replace(/"timeUnixNano":"\d+"/, `"timeUnixNano":${T}`).replace(/"intValue":"?1"?/, '"intValue":9007199254740993');
    assert.notEqual(literal, json);
    const res = await f.post('logs', Buffer.from(literal), { auth: u.device, encoding: 'json' });
    assert.equal(res.status, 200);
    await f.telemetry.drain();
    const e = await f.getJson<{ time: string; timeSource: string; attributes: Record<string, unknown> }>('/api/v1/telemetry/events/evt_lit', u.pat);
    assert.deepEqual([e.time, e.timeSource], ['2026-08-09T00:00:00.448123457Z', 'source']);
    assert.equal(String(e.attributes['agent.skill.instructions.expected_byte_count']), '9007199254740993');
  });
});
