import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { context, trace } from '@opentelemetry/api';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SfError } from '../../errors/index.js';
import { fixturesDir } from '../../../test-support/index.js';
import { field, nestedArrays as nestArrays } from '../../../test-support/protobuf-wire.js';
import { decodeProtobufDirect } from './direct-decode.js';
import { DEFAULT_OTLP_LIMITS } from './limits.js';
import { decodeOtlpRequest, encodeOtlpRequest, type OtlpLogsRequest, type OtlpTracesRequest, type OtlpValue } from './index.js';

const wrap = field;
const str = (field: number, s: string | Buffer) => wrap(field, 2, Buffer.isBuffer(s) ? s : Buffer.from(s));
const kv = (key: string, value: Buffer) => wrap(6, 2, Buffer.concat([str(1, key), wrap(2, 2, value)]));
const logsBody = (records: Buffer[]) => wrap(1, 2, wrap(2, 2, Buffer.concat(records.map((r) => wrap(2, 2, r)))));

describe('core/telemetry/otlp direct protobuf decoder', () => {
  it('decodes the real OTel SDK logs and spans exactly like the reference decoder', async () => {
    const logExporter = new InMemoryLogRecordExporter();
    const logs = new LoggerProvider({ resource: resourceFromAttributes({ 'service.name': 'sdk' }), processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
    const spanExporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] }).getTracer('t', '1.0.0');
    const parent = tracer.startSpan('activate_skill maintainability', { attributes: { 'agent.skill.activation.id': 'act_1', 'n.big': 2 ** 60, 'n.neg': -5 } });
    parent.addEvent('agent.skill.loaded', { 'agent.skill.instructions.file_count': 3 });
    parent.addLink({ context: { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), traceFlags: 1 }, attributes: { why: 'related' } });
    parent.setStatus({ code: 2, message: 'load failed' });
    logs.getLogger('scope', '2.0.0').emit({
      eventName: 'agent.skill.selected',
      severityNumber: SeverityNumber.WARN,
      severityText: 'WARN',
      body: { k: [1, 2.5, 'x', true, null] },
      attributes: { 'agent.skill.id': 'o/n:s', list: ['a', 'b'], 'n.neg': -9007199254740991, f: 0.25 },
      context: trace.setSpan(context.active(), parent),
    });
    parent.end();
    await logs.forceFlush();
    const logBytes = ProtobufLogsSerializer.serializeRequest(logExporter.getFinishedLogRecords())!;
    const spanBytes = ProtobufTraceSerializer.serializeRequest(spanExporter.getFinishedSpans())!;
    const directLogs = decodeProtobufDirect('logs', logBytes);
    assert.deepEqual(directLogs.request, await decodeOtlpRequest('logs', logBytes, 'protobuf'));
    assert.equal(directLogs.wireItems, 1);
    const directSpans = decodeProtobufDirect('traces', spanBytes);
    assert.deepEqual(directSpans.request, await decodeOtlpRequest('traces', spanBytes, 'protobuf'));
    const [span] = directSpans.request.resources[0].scopes[0].items;
    assert.equal(span.attributes['n.big'], 2n ** 60n);
    assert.deepEqual(span.status, { code: 2, message: 'load failed' });
    assert.equal(span.links[0].attributes.why, 'related');
  });

  it('agrees with the reference decoder on every recorded host capture', async () => {
    for (const run of ['claude-tool-details', 'codex-explicit', 'codex-implicit']) {
      const decoded = await decodeOtlpRequest('logs', await readFile(join(fixturesDir, 'host-otlp', run, 'logs.json')), 'json');
      const bytes = await encodeOtlpRequest(decoded, 'protobuf');
      assert.deepEqual(decodeProtobufDirect('logs', bytes).request, await decodeOtlpRequest('logs', bytes, 'protobuf'), run);
    }
  });

  it('agrees with the reference decoder on generated requests (property)', async () => {
    const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.boolean(), fc.integer(), fc.double({ noNaN: true }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== '__proto__'), tie('value'), { maxKeys: 3 })),
    }));
    const record = fc.record({
      timeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
      observedTimeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
      severityNumber: fc.option(fc.integer({ min: 1, max: 24 }), { nil: undefined }),
      eventName: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
      traceId: fc.option(fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex')).filter((h) => !/^0+$/.test(h)), { nil: undefined }),
      attributes: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__'), value, { maxKeys: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 5 }), async (records) => {
        const items = records.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))) as unknown as OtlpLogsRequest['resources'][0]['scopes'][0]['items'];
        const req: OtlpLogsRequest = { signal: 'logs', resources: [{ resource: { attributes: { 'service.name': 'p' } }, scopes: [{ scope: { name: 's' }, items }] }] };
        const bytes = await encodeOtlpRequest(req, 'protobuf');
        assert.deepEqual(decodeProtobufDirect('logs', bytes).request, await decodeOtlpRequest('logs', bytes, 'protobuf'));
      }),
      { numRuns: 150 },
    );
  });

  it('skips a million attributes without materializing them and counts them as dropped', () => {
    const one = kv('k', str(1, 'v'));
    const many = Buffer.concat(Array.from({ length: 1_000_000 }, (_, i) => (i < 200 ? kv(`k${i}`, str(1, 'v')) : one)));
    const body = logsBody([Buffer.concat([many, str(12, 'agent.skill.loaded')]), str(12, 'second')]);
    const { request, droppedByLimits, wireItems } = decodeProtobufDirect('logs', body);
    const [big, small] = request.resources[0].scopes[0].items;
    assert.equal(Object.keys(big.attributes).length, 128);
    assert.equal(big.droppedAttributesCount, 1_000_000 - 128);
    assert.equal(droppedByLimits, 1_000_000 - 128);
    assert.equal(big.eventName, 'agent.skill.loaded');
    assert.deepEqual(small, { timeUnixNano: '0', observedTimeUnixNano: '0', attributes: {}, eventName: 'second' });
    assert.equal(wireItems, 2);
  });

  it('nulls a value nested 100,000 levels deep without recursing, keeping the rest of the record', () => {
    const inner = nestArrays(100_000, str(1, 'leaf'));
    const body = logsBody([Buffer.concat([kv('deep', inner), kv('ok', str(1, 'yes'))])]);
    const { request } = decodeProtobufDirect('logs', body);
    const [rec] = request.resources[0].scopes[0].items;
    assert.equal(rec.attributes.ok, 'yes');
    let v = rec.attributes.deep as OtlpValue;
    let depth = 0;
    while (Array.isArray(v)) {
      v = v[0];
      depth++;
    }
    assert.equal(v, null);
    assert.equal(depth, 65); // arrays at depths 0..64 are kept, their elements at depth 65 are nulled (from-wire.ts semantics)
    assert.equal(rec.droppedAttributesCount, 1);
  });

  it('replaces invalid UTF-8 with U+FFFD instead of failing the request', () => {
    const body = logsBody([kv('name', str(1, Buffer.from([0x61, 0xff, 0xfe, 0x62])))]);
    const [rec] = decodeProtobufDirect('logs', body).request.resources[0].scopes[0].items;
    assert.equal(rec.attributes.name, 'a\ufffd\ufffdb');
    // counted, so the hub reports it and does not keep the bytes as they were sent; a U+FFFD sent as such is no repair
    assert.equal(decodeProtobufDirect('logs', body).repairedStrings, 1);
    assert.equal(decodeProtobufDirect('logs', logsBody([kv('name', str(1, Buffer.from('a\ufffdb')))])).repairedStrings, 0);
  });

  it('rejects malformed protobuf with SF_E_OTLP_DECODE', () => {
    const cases: Buffer[] = [
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), // length past the end
      Buffer.from([0x0a, 0x80]), // truncated varint
      logsBody([Buffer.from([0x09, 0x01, 0x02])]), // truncated fixed64 time
      logsBody([Buffer.from([0x08, 0x01])]), // time_unix_nano with varint wire type
      Buffer.from([0x0b, 0x0c]), // group wire types
      Buffer.from([0x00, 0x00]), // field number 0
      logsBody([Buffer.from([0x00, 0x00])]), // field number 0 inside a record
    ];
    for (const body of cases) {
      assert.throws(() => decodeProtobufDirect('logs', body), (e) => e instanceof SfError && e.code === 'SF_E_OTLP_DECODE', body.toString('hex'));
    }
  });

  it('skips the records after limits.maxItems without building them, and counts them', () => {
    const body = logsBody(Array.from({ length: 5 }, (_, i) => kv('n', str(1, `r${i}`))));
    const limits = { ...DEFAULT_OTLP_LIMITS, maxItems: 2 };
    const d = decodeProtobufDirect('logs', body, limits);
    assert.deepEqual(d.request.resources[0].scopes[0].items.map((r) => r.attributes.n), ['r0', 'r1']);
    assert.equal(d.overLimit, 3);
    assert.equal(d.wireItems, 5);
    assert.equal(decodeProtobufDirect('logs', body).overLimit, 0);
  });

  it('keeps a log record\'s span id only together with a valid trace id', () => {
    const spanId = Buffer.from('00f067aa0ba902b7', 'hex');
    const shortTrace = Buffer.from('4bf92f35', 'hex');
    const body = logsBody([Buffer.concat([wrap(9, 2, shortTrace), wrap(10, 2, spanId)])]);
    const [rec] = decodeProtobufDirect('logs', body).request.resources[0].scopes[0].items;
    assert.equal(rec.traceId, undefined);
    assert.equal(rec.spanId, undefined);
    const good = logsBody([Buffer.concat([wrap(9, 2, Buffer.from('4bf92f3577b34da6a3ce929d0e0e4736', 'hex')), wrap(10, 2, spanId)])]);
    const [ok] = decodeProtobufDirect('logs', good).request.resources[0].scopes[0].items;
    assert.deepEqual([ok.traceId, ok.spanId], ['4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7']);
    // what was dropped is counted (the hub reports it): the short trace id, and the span id it orphaned
    assert.equal(decodeProtobufDirect('logs', body).malformedIds, 2);
    assert.equal(decodeProtobufDirect('logs', good).malformedIds, 0);
    // an all-zero or empty id means "no trace" in OTLP: dropped, but nothing malformed
    const none = logsBody([Buffer.concat([wrap(9, 2, Buffer.alloc(16)), wrap(10, 2, Buffer.alloc(0))])]);
    assert.equal(decodeProtobufDirect('logs', none).malformedIds, 0);
  });

  it('counts malformed parent span ids and link ids of kept spans, which are dropped (the span stays)', async () => {
    const ids = Buffer.concat([str(1, Buffer.alloc(16, 1)), str(2, Buffer.alloc(8, 2))]);
    const badParent = Buffer.concat([ids, str(4, Buffer.alloc(7, 3)), str(5, 'child of a broken parent')]);
    const badLink = Buffer.concat([ids, str(5, 'broken link'), wrap(13, 2, Buffer.concat([str(1, Buffer.alloc(16, 4)), str(2, Buffer.alloc(9, 5))]))]);
    const body = wrap(1, 2, wrap(2, 2, Buffer.concat([badParent, badLink].map((s) => wrap(2, 2, s)))));
    const res = decodeProtobufDirect('traces', body);
    assert.deepEqual(res.request.resources[0].scopes[0].items.map((s) => [s.name, s.parentSpanId, s.links.length]), [['child of a broken parent', undefined, 0], ['broken link', undefined, 0]]);
    assert.deepEqual([res.malformedIds, res.rejectedItems], [2, 0]);
    // OTLP/JSON counts the same (through the shared wire converter)
    const totals = { dropped: 0, malformedIds: 0 };
    const json = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '01'.repeat(16), spanId: '02'.repeat(8), parentSpanId: 'xyz', name: 'j', links: [{ traceId: '04'.repeat(16), spanId: '05'.repeat(9) }] }] }] }], resourceLogs: [] };
    await decodeOtlpRequest('traces', Buffer.from(JSON.stringify(json)), 'json', DEFAULT_OTLP_LIMITS, totals);
    assert.equal(totals.malformedIds, 2);
  });

  it('counts spans without valid ids as rejected', () => {
    const good = Buffer.concat([str(1, Buffer.alloc(16, 1)), str(2, Buffer.alloc(8, 2)), str(5, 'ok')]);
    const zero = Buffer.concat([str(1, Buffer.alloc(16, 0)), str(2, Buffer.alloc(8, 2)), str(5, 'zero trace')]);
    const short = Buffer.concat([str(1, Buffer.alloc(15, 1)), str(2, Buffer.alloc(8, 2)), str(5, 'short')]);
    const body = wrap(1, 2, wrap(2, 2, Buffer.concat([good, zero, short].map((s) => wrap(2, 2, s)))));
    const res = decodeProtobufDirect('traces', body);
    assert.equal(res.wireItems, 3);
    assert.equal(res.rejectedItems, 2);
    assert.deepEqual((res.request as OtlpTracesRequest).resources[0].scopes[0].items.map((s) => s.name), ['ok']);
  });
});
