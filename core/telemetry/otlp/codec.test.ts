import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { context, trace } from '@opentelemetry/api';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonLogsSerializer, ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SfError } from '../../errors/index.js';
import { fixturesDir } from '../../../test-support/index.js';
import {
  decodeExportResponse, decodeOtlpRequest, decompressBody, encodeExportResponse, encodeOtlpRequest, otlpJsonObject,
  type OtlpLogRecord, type OtlpLogsRequest, type OtlpMetricsRequest, type OtlpSpan, type OtlpTracesRequest,
} from './index.js';

const logsOf = (req: OtlpLogsRequest): OtlpLogRecord[] => req.resources.flatMap((r) => r.scopes.flatMap((s) => s.items));

async function sdkLogs() {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ resource: resourceFromAttributes({ 'service.name': 'sdk-test' }), processors: [new SimpleLogRecordProcessor({ exporter })] });
  const tracer = new BasicTracerProvider().getTracer('t');
  const span = tracer.startSpan('parent');
  provider.getLogger('scope-a', '1.2.3').emit({
    eventName: 'agent.skill.loaded',
    severityNumber: SeverityNumber.INFO,
    body: { nested: { deeper: [1, 'two', true] } },
    attributes: { 'an.int': 9007199254740991, 'a.double': 1.5, 'a.bool': false, 'a.list': ['x', 'y'] },
    context: trace.setSpan(context.active(), span),
  });
  await provider.forceFlush();
  return { records: exporter.getFinishedLogRecords(), span };
}

describe('core/telemetry/otlp codec', () => {
  it('decodes the real OTel SDK protobuf logs (eventName, ids, typed attributes, map body) like its JSON', async () => {
    const { records, span } = await sdkLogs();
    const proto = ProtobufLogsSerializer.serializeRequest(records)!;
    const json = JsonLogsSerializer.serializeRequest(records)!;
    const a = (await decodeOtlpRequest('logs', proto, 'protobuf')) as OtlpLogsRequest;
    const b = (await decodeOtlpRequest('logs', json, 'json')) as OtlpLogsRequest;
    assert.deepEqual(a, b);
    const [rec] = logsOf(a);
    assert.equal(rec.eventName, 'agent.skill.loaded');
    assert.equal(rec.traceId, span.spanContext().traceId);
    assert.equal(rec.spanId, span.spanContext().spanId);
    assert.equal(rec.severityNumber, 9);
    assert.deepEqual(rec.attributes, { 'an.int': 9007199254740991, 'a.double': 1.5, 'a.bool': false, 'a.list': ['x', 'y'] });
    assert.deepEqual(rec.body, { nested: { deeper: [1, 'two', true] } });
    assert.equal(a.resources[0].resource.attributes['service.name'], 'sdk-test');
    assert.deepEqual(a.resources[0].scopes[0].scope, { name: 'scope-a', version: '1.2.3' });
  });

  it('decodes SDK protobuf spans', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('t');
    const parent = tracer.startSpan('parent');
    const child = tracer.startSpan('execute_tool Bash', { attributes: { 'gen_ai.tool.name': 'Bash' } }, trace.setSpan(context.active(), parent));
    child.setStatus({ code: 2, message: 'boom' });
    child.end();
    parent.end();
    const req = (await decodeOtlpRequest('traces', ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!, 'protobuf')) as OtlpTracesRequest;
    const spans = req.resources[0].scopes[0].items as OtlpSpan[];
    const c = spans.find((s) => s.name === 'execute_tool Bash')!;
    assert.equal(c.parentSpanId, parent.spanContext().spanId);
    assert.deepEqual(c.status, { code: 2, message: 'boom' });
    assert.equal(c.attributes['gen_ai.tool.name'], 'Bash');
  });

  it('decodes every real host capture and round-trips it through protobuf and JSON unchanged', async () => {
    for (const run of ['claude-tool-details', 'codex-explicit', 'codex-implicit']) {
      for (const signal of ['logs', 'metrics'] as const) {
        const body = await readFile(join(fixturesDir, 'host-otlp', run, `${signal}.json`));
        const decoded = await decodeOtlpRequest(signal, body, 'json');
        const viaProto = await decodeOtlpRequest(signal, await encodeOtlpRequest(decoded, 'protobuf'), 'protobuf');
        const viaJson = await decodeOtlpRequest(signal, await encodeOtlpRequest(decoded, 'json'), 'json');
        assert.deepEqual(viaProto, decoded, `${run} ${signal} via protobuf`);
        assert.deepEqual(viaJson, decoded, `${run} ${signal} via json`);
      }
    }
    const codex = (await decodeOtlpRequest('logs', await readFile(join(fixturesDir, 'host-otlp/codex-explicit/logs.json')), 'json')) as OtlpLogsRequest;
    const inv = logsOf(codex).find((r) => r.attributes['event.name'] === 'codex.skill_invocation')!;
    assert.equal(inv.traceId, '8dde12bb7adabcbf44d0c3d43446e960');
    assert.equal(inv.timeUnixNano, '0');
    assert.equal(inv.observedTimeUnixNano, '1796008922460969226');
    const metrics = (await decodeOtlpRequest('metrics', await readFile(join(fixturesDir, 'host-otlp/codex-explicit/metrics.json')), 'json')) as OtlpMetricsRequest;
    const injected = metrics.resources[0].scopes.flatMap((s) => s.items).find((m) => m.name === 'codex.skill.injected')!;
    assert.equal(injected.data.kind, 'sum');
  });

  it('applies attribute, depth and string limits and counts what they drop', async () => {
    let deep: unknown = { stringValue: 'leaf' };
    for (let i = 0; i < 80; i++) deep = { arrayValue: { values: [deep] } };
    const attributes = Array.from({ length: 140 }, (_, i) => ({ key: `k${i}`, value: { stringValue: 'x'.repeat(i === 0 ? 20000 : 1) } }));
    attributes.push({ key: 'deep', value: deep as { stringValue: string } });
    const body = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: 5, attributes }] }] }] }));
    const [rec] = logsOf((await decodeOtlpRequest('logs', body, 'json')) as OtlpLogsRequest);
    assert.equal(Object.keys(rec.attributes).length, 128);
    assert.equal((rec.attributes.k0 as string).length, 16384);
    assert.equal(rec.timeUnixNano, '5');
    assert.ok((rec.droppedAttributesCount ?? 0) >= 13);
  });

  it('rejects OTLP/JSON fields of the wrong type with SF_E_OTLP_DECODE naming the field, never reading them as defaults', async () => {
    const bodies: [object, RegExp][] = [
      [{ resourceLogs: 5 }, /resourceLogs must be a list/],
      [{ resourceLogs: [{ scopeLogs: [{ scope: 'x', logRecords: [] }] }] }, /resourceLogs\[\]\.scopeLogs\[\]\.scope must be an object/],
      [{ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: 'abc' }] }] }] }, /logRecords\[\]\.timeUnixNano must be nanoseconds as a decimal string or integer, not the string "abc"/],
      [{ resourceLogs: [{ scopeLogs: [{ logRecords: [{ observedTimeUnixNano: 1.5 }] }] }] }, /observedTimeUnixNano must be nanoseconds/],
      [{ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: [1] }] }] }] }, /logRecords\[\]\.body must be an object, not a list/],
    ];
    for (const [body, message] of bodies) {
      await assert.rejects(decodeOtlpRequest('logs', Buffer.from(JSON.stringify(body)), 'json'), (e) => e instanceof SfError && e.code === 'SF_E_OTLP_DECODE' && message.test(e.message), JSON.stringify(body));
    }
    // what the JSON mapping allows stays accepted: null for a message or list, times as numbers
    const fine = { resourceLogs: [{ resource: null, scopeLogs: [{ scope: null, logRecords: [{ timeUnixNano: 1786300931000000000, observedTimeUnixNano: null, body: null, attributes: null }] }] }] };
    const [rec] = logsOf((await decodeOtlpRequest('logs', Buffer.from(JSON.stringify(fine)), 'json')) as OtlpLogsRequest);
    assert.equal(rec.timeUnixNano, '1786300931000000000');
  });

  it('rejects garbage and stack-exhausting protobuf with SF_E_OTLP_DECODE, never a crash', async () => {
    await assert.rejects(decodeOtlpRequest('logs', Buffer.from('{not json'), 'json'), (e) => e instanceof SfError && e.code === 'SF_E_OTLP_DECODE');
    await assert.rejects(decodeOtlpRequest('logs', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), 'protobuf'), (e) => e instanceof SfError && e.code === 'SF_E_OTLP_DECODE');
    // AnyValue.array_value (field 5) nested 30,000 times inside one attribute value
    let inner: Buffer = Buffer.alloc(0);
    const wrap = (tag: number, b: Buffer) => Buffer.concat([Buffer.from([tag]), varint(b.length), b]);
    for (let i = 0; i < 30000; i++) inner = wrap(0x2a, wrap(0x0a, inner));
    const kv = wrap(0x12, inner);
    const record = wrap(0x32, kv);
    const body = wrap(0x0a, wrap(0x12, wrap(0x12, record)));
    await assert.rejects(decodeOtlpRequest('logs', body, 'protobuf'), (e) => e instanceof SfError && e.code === 'SF_E_OTLP_DECODE');
  });

  it('caps decompressed bodies and encodes partial-success responses both ways', async () => {
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024));
    assert.throws(() => decompressBody(bomb, 'gzip', 1024 * 1024), (e) => e instanceof SfError && e.code === 'SF_E_LIMIT');
    assert.equal(decompressBody(gzipSync(Buffer.from('{}')), 'gzip', 100).toString(), '{}');
    assert.throws(() => decompressBody(Buffer.from('x'), 'br', 100), (e) => e instanceof SfError && e.code === 'SF_E_MEDIA_TYPE');
    for (const enc of ['json', 'protobuf'] as const) {
      const body = await encodeExportResponse('logs', enc, { rejected: 3, errorMessage: 'too big' });
      assert.deepEqual(await decodeExportResponse('logs', enc, body), { rejected: 3, errorMessage: 'too big' });
      assert.equal(await decodeExportResponse('logs', enc, await encodeExportResponse('logs', enc)), undefined);
    }
  });

  it('writes OTLP/JSON with hex ids and string int64s, and honours number kinds', () => {
    const req: OtlpLogsRequest = {
      signal: 'logs',
      resources: [{ resource: { attributes: { 'service.name': 's' } }, scopes: [{ scope: { name: 'x' }, items: [{ timeUnixNano: '1', observedTimeUnixNano: '2', traceId: 'ab'.repeat(16), attributes: { d: 2, i: 3 } }] }] }],
    };
    const json = JSON.stringify(otlpJsonObject(req, (k) => (k === 'd' ? 'double' : undefined)));
    assert.match(json, /"traceId":"abab/);
    assert.match(json, /"key":"d","value":\{"doubleValue":2\}/);
    assert.match(json, /"key":"i","value":\{"intValue":"3"\}/);
  });
});

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
