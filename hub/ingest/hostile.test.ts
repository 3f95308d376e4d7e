import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { decodeExportResponse, encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { fixed64Field, nestedArrays } from '../../test-support/protobuf-wire.js';
import { field, kvString, logsRequest, rawLogsBody, skillRecord, stringField } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import type { TimelinePage } from '../query/timeline.js';

/**
 * Hostile OTLP input (reliability-anchors.md §3 and #46-#57): each is answered correctly, the hub
 * keeps serving, and valid data — in the same request where the format allows it, otherwise in
 * the next request — is not lost.
 */

const valid = () => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_valid', 'agent.skill.id': 'owner/x:y' });
const validBody = () => encodeOtlpRequest(logsRequest([valid()]), 'protobuf');
const eventIds = (f: TelemetryFixture) => [...f.telemetry.reader().allEvents()].map((e) => e.eventId).sort();

async function partialOf(res: Response) {
  return decodeExportResponse('logs', 'protobuf', new Uint8Array(await res.arrayBuffer()));
}

/** A well-formed LogRecord (raw protobuf) with an event id and the given extra attribute fields. */
function rawRecord(eventId: string, ...attributes: Buffer[]): Buffer {
  return Buffer.concat([stringField(12, 'agent.skill.selected'), kvString('agent.skill.event.id', eventId), ...attributes]);
}

describe('hub OTLP ingest under hostile input', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  beforeEach(async () => {
    f = await telemetryFixture({ limits: { maxRawBytes: 16 * 1024 * 1024, maxDecompressedBytes: 16 * 1024 * 1024 } });
    u = f.user('alice');
  });
  afterEach(async () => f.cleanup());

  async function stillServing(): Promise<void> {
    const before = eventIds(f).length;
    const res = await f.post('logs', await validBody(), { auth: u.device });
    assert.equal(res.status, 200);
    await f.telemetry.drain();
    assert.equal(eventIds(f).length, before + 1);
  }

  it('gzip bomb: 413 while inflating, memory bounded, the next valid batch is accepted', async () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024), { level: 9 });
    const res = await f.post('logs', bomb, { auth: u.device, headers: { 'content-encoding': 'gzip' } });
    assert.equal(res.status, 413);
    await stillServing();
  });

  it('oversized body: 413 without buffering it, then business as usual', async () => {
    const res = await f.post('logs', Buffer.alloc(17 * 1024 * 1024, 0x0a), { auth: u.device });
    assert.equal(res.status, 413);
    await stillServing();
  });

  it('a million attributes on one record: 128 kept, the rest counted, the other records intact', async () => {
    const many = Buffer.concat(Array.from({ length: 1_000_000 }, (_, i) => kvString(i.toString(36), 'v')));
    const body = rawLogsBody([rawRecord('evt_huge', many), rawRecord('evt_ok', kvString('agent.skill.activation.id', 'act_ok'))]);
    const res = await f.post('logs', body, { auth: u.device });
    assert.equal(res.status, 200);
    const partial = await partialOf(res);
    assert.equal(partial?.rejected, 0);
    // the record's event id plus a million attributes: 128 kept while decoding, and of those the
    // 127 free-form keys are outside the metadata-only allowlist
    assert.match(partial!.errorMessage!, /999873 attributes or values cut by the attribute count, length or nesting limits/);
    assert.match(partial!.errorMessage!, /127 attributes or bodies dropped: outside the metadata-only allowlist/);
    await f.telemetry.drain();
    assert.deepEqual(eventIds(f), ['evt_huge', 'evt_ok']);
    assert.ok(f.telemetry.reader().getActivation(u.id, 'act_ok'));
  });

  it('deep nesting: a value nested 100,000 levels is nulled, the record and its siblings survive', async () => {
    const nested = nestedArrays(100_000, stringField(1, 'leaf'));
    const deep = field(6, 2, Buffer.concat([stringField(1, 'x.deep'), field(2, 2, nested)]));
    const body = rawLogsBody([rawRecord('evt_deep', deep, kvString('agent.skill.activation.id', 'act_deep')), rawRecord('evt_sibling')]);
    const res = await f.post('logs', body, { auth: u.device });
    assert.equal(res.status, 200);
    assert.match((await partialOf(res))!.errorMessage!, /nesting limits/);
    await f.telemetry.drain();
    assert.deepEqual(eventIds(f), ['evt_deep', 'evt_sibling']);
    assert.ok(f.telemetry.reader().getActivation(u.id, 'act_deep'));
  });

  it('metrics: a point attribute nested 100,000 levels or with invalid UTF-8 costs that value, not the points beside it', async () => {
    // NumberDataPoint attributes are field 7; each point has its time (field 3)
    const point = (n: bigint, ...attributes: Buffer[]) => field(1, 2, Buffer.concat([...attributes, fixed64Field(3, n)]));
    const attribute = (key: string, value: Buffer) => field(7, 2, Buffer.concat([stringField(1, key), field(2, 2, value)]));
    const deep = point(1n, attribute('agent.host.name', nestedArrays(100_000, stringField(1, 'leaf'))));
    const invalid = point(2n, attribute('agent.host.name', stringField(1, Buffer.from([0x63, 0xff, 0x63]))));
    const gauge = Buffer.concat([stringField(1, 'agent.skill.installed'), field(5, 2, Buffer.concat([deep, invalid, point(3n)]))]);
    const res = await f.post('metrics', field(1, 2, field(2, 2, field(2, 2, gauge))), { auth: u.device });
    assert.equal(res.status, 200);
    const partial = await decodeExportResponse('metrics', 'protobuf', new Uint8Array(await res.arrayBuffer()));
    assert.equal(partial?.rejected, 0);
    assert.match(partial!.errorMessage!, /1 attributes or values cut by the attribute count, length or nesting limits/);
    assert.match(partial!.errorMessage!, /1 strings repaired with U\+FFFD/);
    const [raw] = [...f.storage.telemetry.rawBatches.listByReceipt()].filter((r) => r.signal === 'metrics');
    assert.deepEqual([raw.records, raw.verbatim], [3, false]);
    await stillServing();
  });

  it('a nested value the allowlist keeps, in a batch re-encoded after admission, is trimmed and stored (never a 503 the exporter retries forever)', async () => {
    const nestedArray = (levels: number) => {
      let value = stringField(1, 'leaf');
      for (let i = 0; i < levels; i++) value = field(5, 2, field(1, 2, value)); // AnyValue{array_value: ArrayValue{values: [value]}}
      return value;
    };
    for (const levels of [63, 65, 70]) {
      const deep = field(6, 2, Buffer.concat([stringField(1, 'agent.skill.trigger.source'), field(2, 2, nestedArray(levels))]));
      // a key outside the metadata-only allowlist makes the hub re-encode what it admitted
      const body = rawLogsBody([rawRecord(`evt_allowed_deep_${levels}`, deep, kvString('free.form', 'x')), rawRecord(`evt_sibling_${levels}`)]);
      const res = await f.post('logs', body, { auth: u.device });
      assert.equal(res.status, 200, `${levels} levels: ${res.status}`);
    }
    await f.telemetry.drain();
    assert.deepEqual(eventIds(f).filter((id) => id.startsWith('evt_allowed_deep_')), ['evt_allowed_deep_63', 'evt_allowed_deep_65', 'evt_allowed_deep_70']);
    await stillServing();
  });

  it('OTLP/JSON reports what the limits cut, as protobuf does (a 20 KB value, 300 attributes)', async () => {
    const attributes = [
      { key: 'agent.skill.event.id', value: { stringValue: 'evt_json_limits' } },
      { key: 'agent.skill.trigger.source', value: { stringValue: 'x'.repeat(20_000) } },
      ...Array.from({ length: 300 }, (_, i) => ({ key: `agent.skill.k${i}`, value: { stringValue: 'v' } })),
    ];
    const json = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ eventName: 'agent.skill.selected', attributes }] }] }] };
    const res = await f.post('logs', Buffer.from(JSON.stringify(json)), { auth: u.device, encoding: 'json' });
    assert.equal(res.status, 200);
    const { partialSuccess } = (await res.json()) as { partialSuccess: { errorMessage: string } };
    assert.match(partialSuccess.errorMessage, /\d+ attributes or values cut by the attribute count, length or nesting limits/);
  });

  it('JSON null (or a number) where a record should be is skipped; the records beside it are stored', async () => {
    const record = (id: string) => ({ eventName: 'agent.skill.selected', attributes: [{ key: 'agent.skill.event.id', value: { stringValue: id } }] });
    const json = { resourceLogs: [null, { scopeLogs: [null, 7, { logRecords: [null, record('evt_beside_null'), 1, 'x', record('evt_beside_number')] }] }] };
    const res = await f.post('logs', Buffer.from(JSON.stringify(json)), { auth: u.device, encoding: 'json' });
    assert.equal(res.status, 200, await res.clone().text());
    await f.telemetry.drain();
    assert.deepEqual(eventIds(f), ['evt_beside_null', 'evt_beside_number']);
  });

  it('invalid UTF-8 (protobuf) and lone surrogates (JSON) are repaired with U+FFFD, never stored raw', async () => {
    const body = rawLogsBody([rawRecord('evt_utf8', kvString('agent.skill.id', Buffer.from([0x6f, 0x2f, 0x6e, 0x3a, 0xff, 0xfe]))), rawRecord('evt_clean')]);
    const proto = await f.post('logs', body, { auth: u.device });
    assert.equal(proto.status, 200);
    // the repair is reported, and the raw batch keeps the repaired request, not the invalid bytes
    assert.match((await partialOf(proto))!.errorMessage!, /1 strings repaired with U\+FFFD/);
    const raw = [...f.storage.telemetry.rawBatches.listByReceipt()].find((r) => r.accountId === u.id && r.records === 2);
    assert.equal(raw?.verbatim, false);
    const json = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"agent.skill.selected","attributes":[{"key":"agent.skill.event.id","value":{"stringValue":"evt_surrogate"}},{"key":"agent.skill.trigger.source","value":{"stringValue":"bad \\ud800 half"}}]}]}]}]}`;
    const res = await f.post('logs', Buffer.from(json), { auth: u.device, encoding: 'json' });
    assert.match(((await res.json()) as { partialSuccess: { errorMessage: string } }).partialSuccess.errorMessage, /1 strings repaired with U\+FFFD/);
    await f.telemetry.drain();
    assert.deepEqual(eventIds(f), ['evt_clean', 'evt_surrogate', 'evt_utf8']);
    const utf8 = f.telemetry.reader().getEvent(u.id, 'evt_utf8')!;
    // the repaired id is not printable ASCII, so it is stored (and keyed) by its hash
    assert.match(utf8.skillId!, /^h_[0-9a-f]{32}$/);
    assert.equal(f.telemetry.reader().getEvent(u.id, 'evt_surrogate')!.attributes['agent.skill.trigger.source'], 'bad \ufffd half');
  });

  it('a malformed trace id on a log record is dropped and reported; the record is stored without it (protobuf and JSON)', async () => {
    const res = await f.post('logs', rawLogsBody([Buffer.concat([rawRecord('evt_short_trace'), field(9, 2, Buffer.from('4bf92f35', 'hex'))])]), { auth: u.device });
    assert.equal(res.status, 200);
    assert.match((await partialOf(res))!.errorMessage!, /1 malformed trace, span or parent span ids dropped/);
    const json = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ eventName: 'agent.skill.selected', traceId: 'not-hex', spanId: '00f067aa0ba902b7', attributes: [{ key: 'agent.skill.event.id', value: { stringValue: 'evt_json_trace' } }] }] }] }] };
    const viaJson = await f.post('logs', Buffer.from(JSON.stringify(json)), { auth: u.device, encoding: 'json' });
    assert.match(((await viaJson.json()) as { partialSuccess: { errorMessage: string } }).partialSuccess.errorMessage, /2 malformed trace, span or parent span ids dropped/);
    await f.telemetry.drain();
    assert.deepEqual(eventIds(f), ['evt_json_trace', 'evt_short_trace']);
    assert.equal(f.telemetry.reader().getEvent(u.id, 'evt_short_trace')!.traceId, undefined);
  });

  it('malformed protobuf: 400 with a Status, the hub keeps serving', async () => {
    for (const bad of [Buffer.from([0x0a, 0x05, 0x12]), Buffer.from([0x0a, 0x80]), Buffer.from([0x0b]), rawLogsBody([Buffer.from([0x09, 0x01])])]) {
      assert.equal((await f.post('logs', bad, { auth: u.device })).status, 400, bad.toString('hex'));
    }
    await stillServing();
  });

  it('wrong content type: 415, nothing stored', async () => {
    const res = await f.app.request('/v1/logs', { method: 'POST', body: (await validBody()) as BodyInit, headers: { 'content-type': 'application/octet-stream', ...u.device } });
    assert.equal(res.status, 415);
    assert.equal([...f.storage.telemetry.rawBatches.listByReceipt()].length, 0);
    await stillServing();
  });

  it('a replayed batch is acknowledged and changes nothing', async () => {
    const body = await encodeOtlpRequest(logsRequest([valid(), skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'act_valid' })]), 'protobuf');
    assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const before = JSON.stringify([[...f.telemetry.reader().allEvents()], [...f.telemetry.reader().allActivations()], [...f.telemetry.reader().allRollups()]]);
    for (let i = 0; i < 3; i++) assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
    await f.telemetry.drain();
    assert.equal(JSON.stringify([[...f.telemetry.reader().allEvents()], [...f.telemetry.reader().allActivations()], [...f.telemetry.reader().allRollups()]]), before);
    assert.equal([...f.storage.telemetry.rawBatches.listByReceipt()].length, 1);
  });

  it("another account's repository hint resolves to nothing: the events stay repo_unresolved", async () => {
    const victimRepo = await f.linkRepository(u, 'alice/secret', ['rfp_alice_secret_repo']);
    const mallory = f.user('mallory');
    const own = await f.linkRepository(mallory, 'mallory/app', ['rfp_mallory_repo_xx']);
    const forged = skillRecord('agent.skill.selected', { 'forge.repository.id': victimRepo, 'forge.repository.fingerprint': 'rfp_alice_secret_repo', 'agent.skill.activation.id': 'act_forged' });
    const honest = skillRecord('agent.skill.selected', { 'forge.repository.fingerprint': 'rfp_mallory_repo_xx', 'agent.skill.activation.id': 'act_honest' });
    const res = await f.post('logs', await encodeOtlpRequest(logsRequest([forged, honest]), 'protobuf'), { auth: mallory.device });
    assert.equal(res.status, 200);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    const e = r.getEvent(mallory.id, String(forged.attributes['agent.skill.event.id']))!;
    assert.deepEqual([e.repositoryResolution, e.repositoryId, e.attributes['forge.repository.id']], ['repo_unresolved', undefined, undefined]);
    assert.equal(r.getEvent(mallory.id, String(honest.attributes['agent.skill.event.id']))!.repositoryId, own);
    const alice = await f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${victimRepo}/timeline?from=2026-08-01T00:00:00Z`, u.pat);
    assert.deepEqual([alice.sessions, alice.gaps], [[], []]);
    assert.equal((await f.app.request(`/api/v1/telemetry/repositories/${victimRepo}/timeline`, { headers: mallory.pat })).status, 404);
    const mine = await f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${own}/timeline?from=2026-08-01T00:00:00Z`, mallory.pat);
    assert.deepEqual(mine.gaps.find((g) => g.kind === 'repo_unresolved')?.count, 1);
  });
});
