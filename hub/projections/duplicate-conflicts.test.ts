import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord, type OtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { IngestLimits } from '../ingest/limits.js';
import type { HealthReport } from '../query/health.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { deliverGoldenFixtures } from '../test-support/otlp-fixtures.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import type { ObservationEventRow } from './rows.js';

/**
 * A device that sends a second event with an agent.skill.event.id it already used, with other
 * content (a buggy or hostile emitter reusing ids), loses that event to the dedupe: the first copy
 * wins. The hub dropped it without a trace; it is now a conflicting duplicate, counted per
 * account and device and listed in the collector/adapter health view (spec "Cardinality,
 * sampling, and governance": what the hub drops is counted). Retries (the same content again,
 * whatever the admission policy made of it by then) stay ordinary duplicates.
 */

const NOW = Date.UTC(2026, 7, 9, 20, 0, 0);
const AT = NOW - 60 * 60 * 1000;
const SKILL = { 'session.id': 'sess_dc', 'agent.skill.activation.id': 'act_dc', 'agent.skill.package.id': 'owner/cq', 'agent.skill.id': 'owner/cq:testing', 'agent.skill.name': 'testing' };

const selected = (id: string, trigger: string, timeMs = AT): OtlpLogRecord =>
  skillRecord('agent.skill.selected', { ...SKILL, 'agent.skill.event.id': id, 'agent.skill.phase': 'selected', 'agent.skill.trigger.type': trigger }, timeMs);

describe('hub projections: a conflicting duplicate event is reported, not silently dropped', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  let now: number;
  afterEach(async () => f?.cleanup());

  async function hub(limits: Partial<IngestLimits> = {}, options: { normalizerThread?: true } = {}) {
    now = NOW;
    f = await telemetryFixture({ now: () => now, limits }, options);
    u = f.user('dupconf');
  }

  async function send(req: OtlpRequest, encoding: 'protobuf' | 'json' = 'protobuf', device = u): Promise<void> {
    const res = await f.post(req.signal, await encodeOtlpRequest(req, encoding), { auth: device.device, encoding });
    assert.equal(res.status, 200);
  }

  const logs = (records: OtlpLogRecord[]) => logsRequest(structuredClone(records), { 'service.name': 'claude-code' });

  async function health(): Promise<HealthReport> {
    await f.telemetry.drain();
    return f.getJson<HealthReport>('/api/v1/telemetry/health', u.pat);
  }

  /** [device, count, event ids of the recent conflicts] per device, and the summary's total. */
  async function conflicts() {
    const h = await health();
    return { total: h.summary.conflictingDuplicates, devices: h.conflictingDuplicates.map((d) => [d.deviceId, d.count, d.recent.map((r) => r.eventId)]) };
  }

  it('a copy with the same id and the same content is an ordinary duplicate', async () => {
    await hub();
    await send(logs([selected('evt_same', 'implicit')]));
    // a re-chunked retry: other bytes (another raw batch), the same event
    await send(logs([selected('evt_same', 'implicit'), selected('evt_other', 'implicit', AT + 1)]), 'json');
    assert.deepEqual(await conflicts(), { total: 0, devices: [] });
  });

  it('a copy with the same id and other content is counted and listed, the first copy kept, once however often it is delivered', async () => {
    await hub();
    await send(logs([selected('evt_dc', 'implicit')]));
    const conflicting = logs([selected('evt_dc', 'explicit')]);
    await send(conflicting);
    const one = { total: 1, devices: [[u.deviceId, 1, ['evt_dc']]] };
    assert.deepEqual(await conflicts(), one);
    const h = await health();
    const [entry] = h.conflictingDuplicates[0].recent;
    assert.equal(entry.eventName, 'agent.skill.selected');
    assert.notEqual(entry.rawBatchId, entry.keptRawBatchId, 'names the batch of the conflicting copy and of the kept one');
    const row = await f.getJson<ObservationEventRow>(`/api/v1/telemetry/events/evt_dc?device=${u.deviceId}`, u.pat);
    assert.equal(row.triggerType, 'implicit', 'the first copy wins');

    // the conflicting batch again: byte for byte (a replay), as JSON (another raw batch) and re-chunked with a new event
    await send(conflicting);
    await send(conflicting, 'json');
    await send(logs([selected('evt_new', 'implicit', AT + 5), selected('evt_dc', 'explicit')]));
    assert.deepEqual(await conflicts(), one, 'deliveries of one conflicting copy count once');

    await f.telemetry.rebuild('1.0.0-dupconf-rebuild');
    assert.deepEqual(await conflicts(), one, 'a rebuild counts the same');
  });

  it('counts each distinct conflicting copy, in one batch too, per device', async () => {
    await hub();
    const other = f.user('dupconf');
    await send(logs([selected('evt_b', 'implicit'), selected('evt_b', 'explicit'), selected('evt_b', 'implicit', AT + 7)]));
    // another device's event with that id is its own, never a conflict
    await send(logs([selected('evt_b', 'explicit')]), 'protobuf', other);
    const { total, devices } = await conflicts();
    assert.equal(total, 2);
    assert.deepEqual(devices, [[u.deviceId, 2, ['evt_b', 'evt_b']]]);
  });

  it('compares the whole event in the normalizer thread, where an action arrives as its head only', async () => {
    await hub({}, { normalizerThread: true });
    const action = (type: string) => skillRecord('agent.action.completed', { ...SKILL, 'agent.skill.event.id': 'evt_act', 'agent.action.type': type, 'agent.skill.activation.ids': ['act_dc'] }, AT + 10);
    await send(logs([action('filesystem.write')]));
    await send(logs([action('filesystem.write'), selected('evt_x', 'implicit')]), 'json');
    assert.deepEqual(await conflicts(), { total: 0, devices: [] });
    await send(logs([action('process.execute')]));
    assert.deepEqual(await conflicts(), { total: 1, devices: [[u.deviceId, 1, ['evt_act']]] });
  });

  it('a retry that admission treated differently (a folded value, another content setting) is no conflict', async () => {
    await hub({ maxDistinctValuesPerKey: 1, cardinalityWindowMs: 1000 });
    const model = (id: string, m: string, timeMs: number) => skillRecord('agent.user.intervention', { ...SKILL, 'agent.skill.event.id': id, 'agent.user.intervention.type': 'correction', 'gen_ai.request.model': m }, timeMs);
    await send(logs([model('evt_m1', 'model-a', AT)]));
    now += 1500; // a new window, in which model-b comes first: the retry's model-a folds into __other__
    await send(logs([model('evt_m2', 'model-b', AT + 1)]));
    await send(logs([model('evt_m1', 'model-a', AT), model('evt_m3', 'model-c', AT + 2)]));
    await f.telemetry.drain();
    assert.equal(f.telemetry.reader().getEvent(u.id, 'evt_m3', u.deviceId)?.model, '__other__', 'the retry\'s batch was folded');
    assert.equal(f.telemetry.reader().getEvent(u.id, 'evt_m1', u.deviceId)?.model, 'model-a', 'the first copy is kept');

    const put = await f.app.request(`/api/v1/telemetry/accounts/${u.login}/settings`, { method: 'PUT', body: JSON.stringify({ contentCollection: true }), headers: { 'content-type': 'application/json', ...u.manage } });
    assert.equal(put.status, 200);
    const withContent = { ...selected('evt_c', 'implicit'), body: 'the prompt' };
    withContent.attributes['custom.note'] = 'kept with content on';
    await send(logs([withContent]));
    await f.app.request(`/api/v1/telemetry/accounts/${u.login}/settings`, { method: 'PUT', body: JSON.stringify({ contentCollection: false }), headers: { 'content-type': 'application/json', ...u.manage } });
    await send(logs([withContent]), 'json');
    assert.deepEqual(await conflicts(), { total: 0, devices: [] });
  });

  it('the golden fixtures (retries, re-chunked and offline deliveries included) have no conflicting duplicates', async () => {
    await hub();
    await deliverGoldenFixtures(f, u);
    assert.deepEqual(await conflicts(), { total: 0, devices: [] });
  });
});
