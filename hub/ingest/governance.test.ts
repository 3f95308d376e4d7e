import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeExportResponse, encodeOtlpRequest, type OtlpLogRecord, type OtlpRequest, type PartialSuccess } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord, testSpan, tracesRequest } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import type { IngestLimits } from './limits.js';

/**
 * Governance of admitted telemetry end to end (audit of issue 5): retries count once whatever
 * changed in between, always-retain events are never folded away, content hidden in allowlisted
 * attributes and names never reaches storage, and every change is reported.
 */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

/** An id-less record (the source has no agent.skill.event.id: the hub fingerprints it). */
function idless(eventName: string, attributes: Record<string, string>, timeMs: number): OtlpLogRecord {
  const r = skillRecord(eventName, attributes, timeMs);
  delete r.attributes['agent.skill.event.id'];
  return r;
}

function observerLogs(records: OtlpLogRecord[]) {
  const req = logsRequest(records);
  req.resources[0].scopes[0].scope = { name: 'sf-observer', version: '0.1.0' };
  return req;
}

/** Every file under `dir`, concatenated (raw blobs and the LMDB file). */
function storedBytes(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? storedBytes(p) : readFileSync(p).toString('latin1');
  }
  return out;
}

describe('hub ingest governance', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  let now: number;
  afterEach(async () => f?.cleanup());

  async function hub(limits: Partial<IngestLimits>) {
    now = T0;
    f = await telemetryFixture({ now: () => now, limits });
    u = f.user('alice');
  }

  async function send(req: OtlpRequest, encoding: 'protobuf' | 'json' = 'protobuf'): Promise<PartialSuccess | undefined> {
    const res = await f.post(req.signal, await encodeOtlpRequest(req, encoding), { auth: u.device, encoding });
    assert.equal(res.status, 200);
    return decodeExportResponse(req.signal, encoding, new Uint8Array(await res.arrayBuffer()));
  }

  const events = () => [...f.telemetry.reader().allEvents()];
  const interventions = () => [...f.telemetry.reader().allRollups()].reduce((n, r) => n + r.interventions, 0);

  it('a retried id-less batch counts once after the cardinality window changed (also re-chunked)', async () => {
    await hub({ maxDistinctValuesPerKey: 2, cardinalityWindowMs: 1000 });
    const model = (m: string, i: number) => idless('agent.user.intervention', { 'gen_ai.request.model': m, 'agent.skill.id': 'acme/deploy:release', 'agent.user.intervention.type': 'correction' }, T0 + i);
    await send(observerLogs([model('model-a', 0)]));
    await send(observerLogs([model('model-b', 1)]));
    const x = [model('model-x', 2), model('model-x', 3), model('model-x', 4)];
    const first = await send(observerLogs(structuredClone(x)));
    assert.match(first!.errorMessage!, /3 attribute values folded into __other__/);
    now += 1500; // a new cardinality window: model-x is no longer folded
    assert.equal(await send(observerLogs(structuredClone(x))), undefined);
    // the same records again in another batch (with one new record): only the new one counts
    await send(observerLogs([...structuredClone(x).slice(1), model('model-a', 5)]));
    await f.telemetry.drain();
    assert.equal([...f.storage.telemetry.rawBatches.listByReceipt()].length, 4, 'the byte-identical retry is a replay');
    assert.equal(events().length, 6);
    assert.equal(interventions(), 6);
    assert.ok(events().every((e) => e.dedupBasis === 'batch_fingerprint'));
  });

  it('a retried id-less batch counts once after the content setting changed', async () => {
    await hub({});
    const y = [0, 1, 2].map((i) => idless('agent.user.intervention', { 'agent.skill.id': 'acme/deploy:release', 'agent.user.intervention.type': 'correction', 'custom.note': 'n' }, T0 + i));
    await send(observerLogs(structuredClone(y)));
    const put = await f.app.request('/api/v1/telemetry/accounts/alice/settings', { method: 'PUT', body: JSON.stringify({ contentCollection: true }), headers: { 'content-type': 'application/json', ...u.manage } });
    assert.equal(put.status, 200);
    await send(observerLogs(structuredClone(y)));
    // JSON bytes of the same records: another raw batch, the same fingerprints
    await send(observerLogs(structuredClone(y)), 'json');
    await f.telemetry.drain();
    assert.equal(events().length, 3);
    assert.equal(interventions(), 3);
  });

  it('never folds registered event names or enum values; what it folds is counted and reported', async () => {
    await hub({ maxDistinctValuesPerKey: 3 });
    const put = await f.app.request('/api/v1/telemetry/accounts/alice/settings', { method: 'PUT', body: JSON.stringify({ contentCollection: true }), headers: { 'content-type': 'application/json', ...u.manage } });
    assert.equal(put.status, 200);
    // one adapter fills the account's budget of event names and of two non-identity keys (array elements count)
    assert.equal(await send(observerLogs([0, 1, 2].map((i) => skillRecord(`custom.event.${i}`, { 'gen_ai.request.model': `m${i}`, 'agent.skill.reason.codes': [`rc${i}`] as never }, T0 + i)))), undefined);
    const partial = await send(observerLogs([
      skillRecord('custom.event.3', {}, T0 + 3),
      skillRecord('agent.user.intervention', { 'agent.skill.event.id': 'evt_int', 'agent.skill.activation.id': 'act_1', 'agent.skill.id': 'o/k:a', 'agent.user.intervention.type': 'correction', 'agent.skill.reason.code': 'scope_expansion', 'gen_ai.request.model': 'm9' }, T0 + 4),
      skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'evt_sel', 'agent.skill.activation.id': 'act_1', 'agent.skill.id': 'o/k:a', 'agent.skill.trigger.type': 'explicit', 'agent.skill.reason.codes': ['overbroad_trigger', 'fresh-code'] }, T0 + 5),
    ]));
    // the unregistered name, the fourth model and the unregistered array element fold
    assert.match(partial!.errorMessage!, /3 attribute values folded into __other__/);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    assert.equal(r.getEvent(u.id, 'evt_int')!.eventName, 'agent.user.intervention');
    assert.equal(r.getEvent(u.id, 'evt_int')!.reasonCode, 'scope_expansion');
    assert.equal(r.getEvent(u.id, 'evt_int')!.model, '__other__');
    assert.equal(r.getEvent(u.id, 'evt_sel')!.eventName, 'agent.skill.selected');
    assert.deepEqual(r.getEvent(u.id, 'evt_sel')!.attributes['agent.skill.reason.codes'], ['overbroad_trigger', '__other__']);
    assert.equal([...r.allFeedback()].length, 1);
    assert.ok(r.getActivation(u.id, 'act_1', u.deviceId));
    assert.equal(interventions(), 1);
    const health = [...f.storage.telemetry.rawBatches.listByReceipt()].reduce((n, b) => n + b.foldedCardinality, 0);
    assert.equal(health, 3, 'the raw batch records count the folds');
  });

  it('keeps content hidden in allowlisted attributes and names out of storage for a metadata-only account, counting it', async () => {
    await hub({});
    const logs = logsRequest([
      skillRecord('agent.skill.selected', {
        'agent.skill.event.id': 'c1',
        'agent.skill.reason.codes': [{ prompt: 'SECRET-KV-IN-ARRAY' }] as never,
        'agent.skill.phase': { prompt: 'SECRET-KV-AS-ENUM' } as never,
        'agent.skill.instructions.file_count': 'SECRET-STRING-AS-INT',
      }, T0),
      { ...skillRecord('SECRET-EVENT-NAME-AS-CONTENT', { 'agent.skill.event.id': 'c2' }, T0), severityText: 'SECRET SEVERITY TEXT' },
    ]);
    logs.resources[0].scopes[0].scope = { name: 'SECRET scope name: a prompt', version: 'SECRET-SCOPE-VERSION' };
    const logPartial = await send(logs);
    // the three wrongly typed values are schema validation failures, not content outside the allowlist
    assert.doesNotMatch(logPartial!.errorMessage!, /attributes or bodies dropped/);
    assert.match(logPartial!.errorMessage!, /3 registry attributes dropped: schema validation failed/);
    assert.match(logPartial!.errorMessage!, /4 names redacted/);
    const span = testSpan('SECRET-SPAN-NAME tool input: rm -rf /', { 'agent.skill.event.id': 'c3' }, T0, T0 + 1, {
      traceState: 'secret=SECRET-TRACE-STATE',
      events: [{ timeUnixNano: `${T0}000000`, name: 'SECRET-SPAN-EVENT-NAME', attributes: { 'agent.skill.risk.flags': ['SECRET-IN-RISK-FLAGS'] } }],
    });
    const tool = testSpan('execute_tool cat SECRET-FILE', { 'agent.skill.event.id': 'c4', 'agent.skill.activation.ids': ['act_t'], 'gen_ai.operation.name': 'execute_tool' }, T0, T0 + 1);
    const tracePartial = await send(tracesRequest([span, tool]), 'json');
    assert.match(tracePartial!.errorMessage!, /2 attributes or bodies dropped/, 'the trace state and the unlisted risk flag');
    assert.match(tracePartial!.errorMessage!, /3 names redacted/);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    assert.deepEqual([r.getEvent(u.id, 'c3')!.spanName, r.getEvent(u.id, 'c4')!.spanName], ['_OTHER', 'execute_tool']);
    assert.equal(r.getEvent(u.id, 'c4')!.eventName, 'span.agent.action', 'a redacted tool span is still a tool span');
    assert.equal(r.getEvent(u.id, 'c2')!.eventName, 'log');
    const batches = [...f.storage.telemetry.rawBatches.listByReceipt()];
    assert.deepEqual([batches.reduce((n, b) => n + b.droppedContent, 0), batches.reduce((n, b) => n + (b.typeMismatches ?? 0), 0)], [9, 3]);
    // the raw blobs and the committed LMDB pages
    assert.deepEqual(storedBytes(f.dataDir).match(/SECRET[A-Z -]*/g) ?? [], []);
  });
});
