import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { otlpTypes } from '../../core/telemetry/otlp/proto-root.js';
import { decodeExportResponse, encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import type { HealthReport } from '../query/health.js';

async function rpcStatus(res: Response): Promise<{ code: number; message: string }> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.headers.get('content-type') === 'application/json') return JSON.parse(Buffer.from(bytes).toString()) as { code: number; message: string };
  const t = await otlpTypes();
  return t.rpcStatus.toObject(t.rpcStatus.decode(bytes)) as { code: number; message: string };
}

describe('hub OTLP/HTTP ingest responses', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it('answers protobuf with an empty protobuf ExportLogsServiceResponse and JSON with {}', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const proto = await f.post('logs', await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected')]), 'protobuf'), { auth: u.device });
    assert.equal(proto.status, 200);
    assert.equal(proto.headers.get('content-type'), 'application/x-protobuf');
    assert.equal((await proto.arrayBuffer()).byteLength, 0);
    const json = await f.post('logs', JSON.parse(Buffer.from(await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected')]), 'json')).toString()), { auth: u.device });
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.deepEqual(await json.json(), {});
    await f.telemetry.drain();
    assert.equal([...f.telemetry.reader().allEvents()].length, 2);
  });

  it('accepts OTLP/JSON with hex ids and int64 as strings or numbers', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const body = {
      resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'codex' } }] }, scopeLogs: [{ scope: { name: 's' }, logRecords: [
        { timeUnixNano: '1786300930000000000', eventName: 'agent.skill.loaded', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7',
          attributes: [
            { key: 'agent.skill.event.id', value: { stringValue: 'e-json-1' } },
            { key: 'agent.skill.activation.id', value: { stringValue: 'act_json' } },
            { key: 'agent.skill.instructions.file_count', value: { intValue: 3 } },
            { key: 'agent.skill.instructions.byte_count', value: { intValue: '18420' } },
          ] },
        { timeUnixNano: 1786300931000000000, eventName: 'agent.skill.selected', attributes: [{ key: 'agent.skill.event.id', value: { stringValue: 'e-json-2' } }, { key: 'agent.skill.activation.id', value: { stringValue: 'act_json' } }] },
      ] }] }],
    };
    const res = await f.post('logs', body, { auth: u.device });
    assert.equal(res.status, 200);
    await f.telemetry.drain();
    const e = f.telemetry.reader().getEvent(u.id, 'e-json-1')!;
    assert.deepEqual([e.traceId, e.spanId], ['4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7']);
    assert.deepEqual(f.telemetry.reader().getActivation(u.id, 'act_json')!.instructions, { fileCount: 3, byteCount: 18420 });
  });

  it('returns partial_success with rejected counts for records past the per-request limit, keeping the rest', async () => {
    f = await telemetryFixture({ limits: { maxRecordsPerRequest: 3 } });
    const u = f.user('alice');
    const records = Array.from({ length: 5 }, () => skillRecord('agent.skill.eligible'));
    const res = await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: u.device });
    assert.equal(res.status, 200);
    const partial = await decodeExportResponse('logs', 'protobuf', new Uint8Array(await res.arrayBuffer()));
    assert.equal(partial?.rejected, 2);
    assert.match(partial!.errorMessage!, /over the 3-records-per-request limit/);
    await f.telemetry.drain();
    assert.deepEqual([...f.telemetry.reader().allEvents()].map((e) => e.eventId).sort(), records.slice(0, 3).map((r) => r.attributes['agent.skill.event.id']).sort());
    // the same over OTLP/JSON
    const json = await f.post('logs', await encodeOtlpRequest(logsRequest(Array.from({ length: 5 }, () => skillRecord('agent.skill.eligible'))), 'json'), { auth: u.device, encoding: 'json' });
    const body = (await json.json()) as { partialSuccess: { rejectedLogRecords: string | number; errorMessage: string } };
    assert.equal(Number(body.partialSuccess.rejectedLogRecords), 2);
    assert.match(body.partialSuccess.errorMessage, /over the 3-records-per-request limit/);
  });

  it('answers malformed bodies with 400 and a google.rpc.Status in the request encoding', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const bad = await f.post('logs', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), { auth: u.device });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get('content-type'), 'application/x-protobuf');
    const status = await rpcStatus(bad);
    assert.equal(status.code, 3);
    assert.match(status.message, /could not be decoded/);
    const badJson = await f.post('logs', Buffer.from('{"resourceLogs": ['), { auth: u.device, encoding: 'json' });
    assert.equal(badJson.status, 400);
    assert.equal(badJson.headers.get('content-type'), 'application/json');
    assert.equal((await rpcStatus(badJson)).code, 3);
  });

  it('answers OTLP/JSON with fields of the wrong type with 400 and a Status naming the field, storing nothing; the null-skipping and partial-success rules still hold', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const record = (id: string, extra: object = {}) => ({ eventName: 'agent.skill.selected', attributes: [{ key: 'agent.skill.event.id', value: { stringValue: id } }], ...extra });
    const logs = (...records: object[]) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });
    const wrong: [string, object, RegExp][] = [
      ['logs', { resourceLogs: 5 }, /resourceLogs must be a list, not the number 5/],
      ['logs', { resourceLogs: 'x' }, /resourceLogs must be a list, not the string "x"/],
      ['logs', { resourceLogs: [{ scopeLogs: {} }] }, /resourceLogs\[\]\.scopeLogs must be a list/],
      ['logs', { resourceLogs: [{ resource: 'svc', scopeLogs: [] }] }, /resourceLogs\[\]\.resource must be an object/],
      ['logs', logs(record('evt_ok'), record('evt_bad_time', { timeUnixNano: 'abc' })), /logRecords\[\]\.timeUnixNano must be nanoseconds/],
      ['logs', logs(record('evt_ok'), record('evt_bad_body', { body: 5 })), /logRecords\[\]\.body must be an object, not the number 5/],
      ['logs', logs(record('evt_text_body', { body: 'text' })), /logRecords\[\]\.body must be an object/],
      ['logs', logs({ attributes: [{ key: 'k', value: 'v' }] }), /logRecords\[\]\.attributes\[\]\.value must be an object/],
      ['logs', logs({ attributes: [{ key: 'k', value: { arrayValue: { values: [1] } } }] }), /arrayValue\.values\[\] must be an object/],
      ['traces', { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', startTimeUnixNano: -1 }] }] }] }, /spans\[\]\.startTimeUnixNano must be nanoseconds/],
      ['metrics', { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', sum: 3 }] }] }] }, /metrics\[\]\.sum must be an object/],
    ];
    for (const [signal, body, message] of wrong) {
      const res = await f.post(signal as 'logs', body, { auth: u.device });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.headers.get('content-type'), 'application/json');
      const status = await rpcStatus(res);
      assert.equal(status.code, 3);
      assert.match(status.message, message);
    }
    assert.deepEqual([...f.storage.telemetry.rawBatches.listByReceipt()], [], 'nothing was stored, not even the valid records beside a wrong one');
    // null elements of a list are skipped, the records beside them stored; a malformed id is a partial success
    const ok = await f.post('logs', { resourceLogs: [null, { scopeLogs: [{ logRecords: [null, record('evt_beside'), record('evt_bad_id', { traceId: 'nothex' }), record('evt_numeric_time', { timeUnixNano: 1786300931000000000 })] }] }] }, { auth: u.device });
    assert.equal(ok.status, 200);
    assert.match(((await ok.json()) as { partialSuccess: { errorMessage: string } }).partialSuccess.errorMessage, /1 malformed trace, span or parent span ids dropped/);
    await f.telemetry.drain();
    assert.deepEqual([...f.telemetry.reader().allEvents()].map((e) => e.eventId).sort(), ['evt_bad_id', 'evt_beside', 'evt_numeric_time']);
  });

  it('enforces the raw and decompressed byte limits with 413', async () => {
    f = await telemetryFixture({ limits: { maxRawBytes: 64 * 1024, maxDecompressedBytes: 1024 * 1024 } });
    const u = f.user('alice');
    const big = await f.post('logs', Buffer.alloc(100 * 1024, 0x0a), { auth: u.device });
    assert.equal(big.status, 413);
    assert.equal((await rpcStatus(big)).code, 8);
    const declared = await f.post('logs', Buffer.alloc(10), { auth: u.device, headers: { 'content-length': String(10 * 1024 * 1024) } });
    assert.equal(declared.status, 413);
    assert.equal(declared.headers.get('connection'), 'close', 'the rest of a refused body is not read and discarded on a kept-alive connection');
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    assert.ok(bomb.length < 64 * 1024, 'the bomb itself is under the raw limit');
    const res = await f.post('logs', bomb, { auth: u.device, headers: { 'content-encoding': 'gzip' } });
    assert.equal(res.status, 413);
    assert.match((await rpcStatus(res)).message, /decompressed/);
  });

  it('refuses other content types and encodings with 415, and other methods with 405', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const text = await f.app.request('/v1/logs', { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain', ...u.device } });
    assert.equal(text.status, 415);
    assert.equal(text.headers.get('content-type'), 'application/json');
    const br = await f.post('logs', Buffer.from('x'), { auth: u.device, headers: { 'content-encoding': 'br' } });
    assert.equal(br.status, 415);
    assert.equal(br.headers.get('accept-encoding'), 'gzip, deflate, identity', 'RFC 9110 §12.5.3: say which codings would do');
    const xgzip = await f.post('logs', gzipSync(await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected')]), 'protobuf')), { auth: u.device, headers: { 'content-encoding': 'x-gzip' } });
    assert.equal(xgzip.status, 200, 'x-gzip is gzip (RFC 9110 §8.4.1.3)');
    const get = await f.app.request('/v1/traces', { headers: u.device });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  it('authenticates: 401 without or with a bad credential, 403 without telemetry:write, devices and admin PATs accepted', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const body = await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected')]), 'protobuf');
    const none = await f.post('logs', body, { auth: {} });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="forge-hub"');
    assert.equal((await rpcStatus(none)).code, 16);
    const bad = await f.post('logs', body, { auth: { authorization: 'Bearer sfd_nottherealsecretatallxxxxxx' } });
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get('www-authenticate'), 'Bearer realm="forge-hub", error="invalid_token"', 'RFC 6750 §3.1');
    const scopeless = await f.post('logs', body, { auth: u.pat });
    assert.equal(scopeless.status, 403);
    assert.equal(scopeless.headers.get('www-authenticate'), 'Bearer realm="forge-hub", error="insufficient_scope", scope="telemetry:write"');
    const admin = f.user('root', { admin: true });
    assert.equal((await f.post('logs', body, { auth: admin.pat })).status, 200);
    assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
  });

  it('answers back-pressure with 429 (one account) and 503 (the hub) plus Retry-After', async () => {
    f = await telemetryFixture({ limits: { maxQueuedBatchesPerAccount: 1, maxQueuedBatches: 2, retryAfterSeconds: 7 } });
    const a = f.user('alice');
    const b = f.user('bob');
    const c = f.user('carol');
    const body = async () => encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected')]), 'protobuf');
    assert.equal((await f.post('logs', await body(), { auth: a.device })).status, 200);
    const limited = await f.post('logs', await body(), { auth: a.device });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '7');
    assert.equal((await f.post('logs', await body(), { auth: b.device })).status, 200);
    const full = await f.post('logs', await body(), { auth: c.device });
    assert.equal(full.status, 503);
    assert.equal(full.headers.get('retry-after'), '7');
    assert.equal((await rpcStatus(full)).code, 14);
    await f.telemetry.drain();
    assert.equal((await f.post('logs', await body(), { auth: c.device })).status, 200);
  });

  it('normalizes activation and tool spans, and keeps metrics only as health evidence', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const t0 = Date.UTC(2026, 7, 9, 18, 42, 10);
    const span = (id: string, name: string, start: number, end: number, attributes: object[], status?: object) => ({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: id, name, kind: 1, startTimeUnixNano: `${start}000000`, endTimeUnixNano: `${end}000000`, attributes, ...(status ? { status } : {}),
    });
    const s = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const traces = { resourceSpans: [{ resource: { attributes: [s('service.name', 'opencode')] }, scopeSpans: [{ scope: { name: 'sf' }, spans: [
      span('00f067aa0ba902b7', 'activate_skill writer', t0, t0 + 80, [s('agent.skill.activation.id', 'act_span'), s('agent.skill.id', 'tools/docs:writer'), s('agent.skill.trigger.type', 'explicit')]),
      span('00f067aa0ba902b8', 'activate_skill broken', t0, t0 + 30, [s('agent.skill.activation.id', 'act_span_fail'), s('agent.skill.id', 'tools/docs:broken')], { code: 2, message: 'ENOENT /home/u/x' }),
      span('00f067aa0ba902b9', 'execute_tool Bash', t0 + 100, t0 + 900, [s('agent.action.type', 'process.execute'), { key: 'agent.skill.activation.ids', value: { arrayValue: { values: [{ stringValue: 'act_span' }] } } }, s('agent.skill.attribution.fidelity', 'shared')]),
      { ...span('00000000000000aa', 'bad', t0, t0, []), traceId: 'not-hex' },
    ] }] }] };
    const res = await f.post('traces', traces, { auth: u.device });
    const out = (await res.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    assert.equal(out.partialSuccess.rejectedSpans, '1');
    assert.match(out.partialSuccess.errorMessage, /1 spans rejected: missing or malformed trace\/span id/);
    assert.match(out.partialSuccess.errorMessage, /1 attributes or bodies dropped/); // the status message (a path) is content
    const metrics = { resourceMetrics: [{ resource: { attributes: [s('service.name', 'opencode')] }, scopeMetrics: [{ scope: { name: 'sf' }, metrics: [
      { name: 'agent.skill.telemetry.dropped.count', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ asInt: '12', timeUnixNano: `${t0}000000`, attributes: [s('agent.adapter.name', 'a'), s('skill.id', 'high-cardinality')] }] } },
    ] }] }] };
    const m = await f.post('metrics', metrics, { auth: u.device });
    assert.match(((await m.json()) as { partialSuccess: { errorMessage: string } }).partialSuccess.errorMessage, /1 attributes or bodies dropped/);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    const ok = r.getActivation(u.id, 'act_span')!;
    assert.deepEqual([ok.load, ok.loadDurationMs, ok.triggerType, ok.serviceName], ['complete', 80, 'explicit', 'opencode']);
    assert.equal(r.getActivation(u.id, 'act_span_fail')!.load, 'failed');
    const [action] = [...r.allActions()];
    assert.deepEqual([action.actionType, action.source, action.activationIds, action.attributionFidelity], ['process.execute', 'span', ['act_span'], 'shared']);
    const health = await f.getJson<HealthReport>('/api/v1/telemetry/health', u.pat);
    assert.equal(health.processes.length, 1);
    assert.deepEqual([health.processes[0].clientDropped, health.processes[0].rejected, health.processes[0].lastSignal], [12, 1, 'metrics']);
  });
});
