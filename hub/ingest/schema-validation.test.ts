import assert from 'node:assert/strict';
import { decodeExportResponse, encodeOtlpRequest, type OtlpLogsRequest, type PartialSuccess } from '../../core/telemetry/otlp/index.js';
import type { HealthReport } from '../query/health.js';
import { skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';

/**
 * Spec §12 "Operations": track schema validation failures and unknown enum values by adapter
 * version. A registry attribute of the wrong type is a schema validation failure (not content
 * outside the allowlist), an enum value outside the registry is kept but counted, and both are
 * named in partial_success and counted per emitting process in the health view.
 */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

/** The audit's probe (hub-unknown.sh): unknown enum members, a count sent as a string, from one adapter version per resource. */
function probe(): OtlpLogsRequest {
  const common = { 'agent.skill.id': 'acme/greetings:bye-skill', 'agent.skill.activation.id': 'act_unknownenum1', 'agent.skill.evidence.source': 'telepathy', 'agent.skill.evidence.fidelity': 'certain' };
  const resource = (version: string) => ({ 'service.name': 'codex', 'agent.adapter.name': 'sf-codex', 'agent.adapter.version': version });
  return {
    signal: 'logs',
    resources: [
      { resource: { attributes: resource('0.1.0') }, scopes: [{ scope: { name: 'sf-observer' }, items: [
        skillRecord('agent.skill.selected', { ...common, 'agent.skill.event.id': 'evt_unk_sel', 'agent.skill.trigger.type': 'magic', 'agent.skill.phase': 'selected' }, T0),
      ] }] },
      { resource: { attributes: resource('0.2.0') }, scopes: [{ scope: { name: 'sf-observer' }, items: [
        skillRecord('agent.skill.loaded', { ...common, 'agent.skill.event.id': 'evt_unk_load', 'agent.skill.result': 'success', 'agent.skill.instructions.byte_count': '18420' }, T0 + 1),
      ] }] },
    ],
  };
}

describe('hub ingest schema validation', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  afterEach(async () => f?.cleanup());

  async function send(req: OtlpLogsRequest): Promise<PartialSuccess | undefined> {
    const res = await f.post('logs', await encodeOtlpRequest(req, 'protobuf'), { auth: u.device });
    assert.equal(res.status, 200);
    return decodeExportResponse('logs', 'protobuf', new Uint8Array(await res.arrayBuffer()));
  }

  it('names type mismatches and unknown enum values in partial_success and counts them per process and adapter version in the health view', async () => {
    f = await telemetryFixture({ now: () => T0 + 60_000 });
    u = f.user('alice');
    const partial = await send(probe());
    assert.equal(partial?.rejected, 0);
    assert.equal(
      partial?.errorMessage,
      "1 registry attributes dropped: schema validation failed, the value does not have the registry's type (fix the emitter); "
        + '6 enum values kept that the registry does not define (stored as sent; a newer convention or a wrong value)',
    );
    assert.doesNotMatch(partial!.errorMessage!, /metadata-only allowlist/, 'the count is on the allowlist: content collection would not change it');
    await f.telemetry.drain();
    const sel = f.telemetry.reader().getEvent(u.id, 'evt_unk_sel')!;
    const load = f.telemetry.reader().getEvent(u.id, 'evt_unk_load')!;
    assert.deepEqual([sel.triggerType, sel.evidenceSource, sel.evidenceFidelity, load.result], ['magic', 'telepathy', 'certain', 'success'], 'unknown enum values are stored as sent');
    assert.equal(load.attributes['agent.skill.instructions.byte_count'], undefined);

    const health = await f.getJson<HealthReport>('/api/v1/telemetry/health', u.pat);
    const rows = health.processes.map((p) => [p.adapterVersion, p.typeMismatches, p.unknownEnumValues, p.droppedContent]).sort();
    assert.deepEqual(rows, [['0.1.0', 0, 3, 0], ['0.2.0', 1, 3, 0]]);
    assert.deepEqual([health.summary.typeMismatches, health.summary.unknownEnumValues, health.summary.droppedContent], [1, 6, 0]);
    const [batch] = f.storage.telemetry.rawBatches.listByReceipt();
    assert.deepEqual([batch.typeMismatches, batch.unknownEnumValues, batch.droppedContent], [1, 6, 0]);
  });

  it('with content collection on, a wrongly typed registry attribute is kept as sent, and still reported and counted', async () => {
    f = await telemetryFixture({ now: () => T0 + 60_000 });
    u = f.user('bob');
    const put = await f.app.request('/api/v1/telemetry/accounts/bob/settings', { method: 'PUT', body: JSON.stringify({ contentCollection: true }), headers: { 'content-type': 'application/json', ...u.manage } });
    assert.equal(put.status, 200);
    const partial = await send(probe());
    assert.match(partial!.errorMessage!, /^1 registry attributes kept as content: schema validation failed/);
    await f.telemetry.drain();
    assert.equal(f.telemetry.reader().getEvent(u.id, 'evt_unk_load')!.attributes['agent.skill.instructions.byte_count'], '18420');
    const health = await f.getJson<HealthReport>('/api/v1/telemetry/health', u.pat);
    assert.deepEqual([health.summary.typeMismatches, health.summary.unknownEnumValues], [1, 6]);
    const [batch] = f.storage.telemetry.rawBatches.listByReceipt();
    assert.equal(batch.verbatim, true, 'admission changed nothing (only warnings): the bytes as received are the raw batch');
  });

  it('a request the registry fully admits gets no partial_success and is stored as received', async () => {
    f = await telemetryFixture({ now: () => T0 + 60_000 });
    u = f.user('carol');
    const req = probe();
    for (const g of req.resources) {
      for (const r of g.scopes[0].items) {
        Object.assign(r.attributes, { 'agent.skill.evidence.source': 'native_otel', 'agent.skill.evidence.fidelity': 'exact' });
        if (r.attributes['agent.skill.trigger.type']) r.attributes['agent.skill.trigger.type'] = 'implicit';
        if (r.attributes['agent.skill.result']) r.attributes['agent.skill.result'] = 'ok';
        delete r.attributes['agent.skill.instructions.byte_count'];
      }
    }
    assert.equal(await send(req), undefined);
    const [batch] = f.storage.telemetry.rawBatches.listByReceipt();
    assert.deepEqual([batch.verbatim, batch.typeMismatches, batch.unknownEnumValues], [true, 0, 0]);
  });
});
