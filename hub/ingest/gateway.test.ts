import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { HealthReport } from '../query/health.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

/** The ingest gateway end to end: what it keeps, and what a replayed delivery changes (nothing but a heartbeat). */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

describe('hub OTLP ingest gateway', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it('honours the deprecated event.name attribute for metadata-only accounts', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    const rec = skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'old_sdk', 'event.name': 'agent.skill.selected', 'agent.skill.activation.id': 'act_old', 'agent.skill.id': 'o/k:a' }, T0);
    delete rec.eventName;
    const req = logsRequest([rec]);
    req.resources[0].scopes[0].scope = { name: 'sf-observer', version: '0.1.0' }; // Forge's own scope: nothing of it is redacted
    const res = await f.post('logs', await encodeOtlpRequest(req, 'protobuf'), { auth: u.device });
    assert.equal(res.status, 200);
    await f.telemetry.drain();
    const e = f.telemetry.reader().getEvent(u.id, 'old_sdk')!;
    assert.equal(e.eventName, 'agent.skill.selected');
    assert.equal(e.attributes['event.name'], undefined, "the name is the row's eventName, not kept twice");
    assert.ok(f.telemetry.reader().getActivation(u.id, 'act_old', u.deviceId));
    // the raw batch was kept byte for byte (nothing was dropped), so a rebuild reads the same name
    assert.equal([...f.storage.telemetry.rawBatches.listByReceipt()][0].verbatim, true);
  });

  it('a replayed batch is a heartbeat: it adds no batch, records or drops to collector health, only a replay', async () => {
    let now = T0;
    f = await telemetryFixture({ now: () => now });
    const u = f.user('alice');
    const req = logsRequest([
      skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'a1', 'agent.skill.id': 'o/k:a', 'gen_ai.prompt': 'dropped' }, T0),
      skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'a1', 'agent.skill.id': 'o/k:a' }, T0 + 5),
    ]);
    req.resources[0].scopes[0].scope = { name: 'sf-observer' };
    const body = await encodeOtlpRequest(req, 'protobuf');
    const health = async () => (await f.getJson<HealthReport>('/api/v1/telemetry/health', u.pat));
    assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
    const first = await health();
    now += 60_000;
    for (let i = 0; i < 2; i++) assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
    const after = await health();
    const pick = (h: HealthReport) => [h.summary.records, h.summary.droppedContent, h.processes[0].batches];
    assert.deepEqual(pick(after), pick(first));
    assert.deepEqual(pick(first), [2, 1, 1]);
    assert.deepEqual([after.summary.replays, after.processes[0].replays, after.processes[0].lastSeen], [2, 2, new Date(now).toISOString()]);
  });
});
