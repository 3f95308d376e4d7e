import assert from 'node:assert/strict';
import { ValueType } from '@opentelemetry/api';
import { ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { fixed64Field, field, nestedArrays, varint } from '../../../test-support/protobuf-wire.js';
import { SfError } from '../../errors/index.js';
import { decodeProtobufDirect } from './direct-decode.js';
import { DEFAULT_OTLP_LIMITS } from './limits.js';
import { otlpTypes } from './proto-root.js';
import { decodeOtlpRequest, encodeOtlpRequest, type OtlpMetric, type OtlpMetricsRequest } from './index.js';

/** Reads whatever the meter provider holds, on demand. */
class ManualReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const wrap = field;
const fixed64 = fixed64Field;
const str = (field: number, s: string | Buffer) => wrap(field, 2, Buffer.isBuffer(s) ? s : Buffer.from(s));
/** KeyValue (as field `field` of its message) with the AnyValue bytes `value`. */
const kv = (field: number, key: string, value: Buffer) => wrap(field, 2, Buffer.concat([str(1, key), wrap(2, 2, value)]));
/** ExportMetricsServiceRequest with one resource and scope holding raw Metric bodies. */
const metricsBody = (metrics: Buffer[]) => wrap(1, 2, wrap(2, 2, Buffer.concat(metrics.map((m) => wrap(2, 2, m)))));
/** A Gauge metric named `name` with the given raw NumberDataPoints. */
const gauge = (name: string, points: Buffer[]) => Buffer.concat([str(1, name), wrap(5, 2, Buffer.concat(points.map((p) => wrap(1, 2, p))))]);
const metricsOf = (req: OtlpMetricsRequest): OtlpMetric[] => req.resources.flatMap((r) => r.scopes.flatMap((s) => s.items));
const carried = (m: OtlpMetric) => m.data.kind === 'exponentialHistogram' || m.data.kind === 'summary';

/**
 * The direct decoder against the reference (protobufjs): decoded points must be identical;
 * exponential histograms and summaries are carried as wire objects, whose meaning is what they
 * encode to, so those are compared through the reference decoder after encoding them again.
 */
async function assertAgrees(bytes: Uint8Array): Promise<OtlpMetricsRequest> {
  const direct = decodeProtobufDirect('metrics', bytes).request;
  const reference = (await decodeOtlpRequest('metrics', bytes, 'protobuf')) as OtlpMetricsRequest;
  const decodedOnly = (req: OtlpMetricsRequest) => metricsOf(req).filter((m) => !carried(m));
  assert.deepEqual(decodedOnly(direct), decodedOnly(reference));
  assert.deepEqual(await decodeOtlpRequest('metrics', await encodeOtlpRequest(direct, 'protobuf'), 'protobuf'), reference);
  return direct;
}

describe('core/telemetry/otlp direct protobuf decoder: metrics', () => {
  it('decodes the real OTel SDK metrics (sum, gauge, histogram, exponential histogram) like the reference decoder', async () => {
    const reader = new ManualReader();
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'sdk' }),
      readers: [reader],
      views: [{ instrumentName: 'agent.skill.load.duration.exp', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
    });
    const meter = provider.getMeter('forge-test', '1.0.0');
    const activations = meter.createCounter('agent.skill.activations', { valueType: ValueType.INT, unit: '{activation}', description: 'skill activations' });
    activations.add(3, { 'agent.skill.id': 'o/n:s', 'agent.host.name': 'claude_code' });
    activations.add(2 ** 40, { 'agent.skill.id': 'o/n:t' });
    meter.createUpDownCounter('agent.skill.active', { valueType: ValueType.DOUBLE }).add(-1.5, { 'agent.skill.id': 'o/n:s' });
    const duration = meter.createHistogram('agent.skill.load.duration', { unit: 'ms', advice: { explicitBucketBoundaries: [1, 10, 100] } });
    for (const v of [0.5, 7, 7, 250]) duration.record(v, { 'agent.skill.id': 'o/n:s' });
    const exp = meter.createHistogram('agent.skill.load.duration.exp', { unit: 'ms' });
    for (const v of [0, 0.25, 3, 3, 1000, -2]) exp.record(Math.abs(v), { 'agent.skill.id': 'o/n:s', n: 7 });
    meter.createObservableGauge('agent.skill.installed').addCallback((r) => r.observe(12, { scope: 'user' }));
    const { resourceMetrics } = await reader.collect();
    const bytes = ProtobufMetricsSerializer.serializeRequest(resourceMetrics)!;
    const direct = await assertAgrees(bytes);
    const byName = new Map(metricsOf(direct).map((m) => [m.name, m]));
    const sum = byName.get('agent.skill.activations')!;
    assert.equal(sum.data.kind, 'sum');
    assert.deepEqual(sum.data.kind === 'sum' && sum.data.dataPoints.map((p) => p.asInt), [3, 2 ** 40]);
    assert.equal(sum.unit, '{activation}');
    const hist = byName.get('agent.skill.load.duration')!;
    assert.deepEqual(hist.data.kind === 'histogram' && [hist.data.dataPoints[0].bucketCounts, hist.data.dataPoints[0].explicitBounds], [[1, 2, 0, 1], [1, 10, 100]]);
    assert.equal(byName.get('agent.skill.load.duration.exp')!.data.kind, 'exponentialHistogram');
    assert.equal(byName.get('agent.skill.installed')!.data.kind, 'gauge');
  });

  it('decodes summaries, large and negative integers, and repeated fields packed or not', async () => {
    const types = await otlpTypes();
    const wire = {
      resourceMetrics: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'x' } }] },
        scopeMetrics: [{
          scope: { name: 's' },
          metrics: [
            { name: 'q', summary: { dataPoints: [{ attributes: [{ key: 'k', value: { intValue: 5 } }], timeUnixNano: '1700000000000000001', count: '18446744073709551615', sum: 2.5, quantileValues: [{ quantile: 0.5, value: 1 }, { quantile: 0.99, value: 9 }] }] } },
            { name: 'g', gauge: { dataPoints: [{ timeUnixNano: '5', asInt: '-9223372036854775808' }, { timeUnixNano: '6', asInt: '-3' }, { timeUnixNano: '7', asDouble: 0.125, flags: 1 }] } },
            { name: 'e', exponentialHistogram: { aggregationTemporality: 1, dataPoints: [{ count: '4', scale: -3, zeroCount: '1', positive: { offset: -2, bucketCounts: ['1', '18446744073709551615'] }, negative: { offset: 5, bucketCounts: ['0'] }, min: 0, max: 8, zeroThreshold: 0.001 }] } },
          ],
        }],
      }],
    };
    const bytes = types.metricsRequest.encode(types.metricsRequest.fromObject(wire)).finish();
    const direct = await assertAgrees(bytes);
    const g = metricsOf(direct).find((m) => m.name === 'g')!;
    assert.deepEqual(g.data.kind === 'gauge' && g.data.dataPoints.map((p) => p.asInt ?? p.asDouble), ['-9223372036854775808', -3, 0.125]);

    // the same histogram point with bucket_counts and explicit_bounds packed (as protobufjs writes them) and unpacked
    const doubles = (ns: number[]) => Buffer.concat(ns.map((n) => { const b = Buffer.alloc(8); b.writeDoubleLE(n); return b; }));
    const counts = (ns: bigint[]) => Buffer.concat(ns.map((n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(n); return b; }));
    const histogram = (point: Buffer) => Buffer.concat([str(1, 'h'), wrap(9, 2, Buffer.concat([wrap(1, 2, point), Buffer.from([0x10, 0x02])]))]);
    const head = Buffer.concat([fixed64(3, 9n), fixed64(4, 3n)]);
    const packed = histogram(Buffer.concat([head, wrap(6, 2, counts([1n, 2n])), wrap(7, 2, doubles([10]))]));
    const unpacked = histogram(Buffer.concat([head, fixed64(6, 1n), fixed64(6, 2n), Buffer.concat([varint((7 << 3) | 1), doubles([10])])]));
    const a = await assertAgrees(metricsBody([packed]));
    assert.deepEqual(await assertAgrees(metricsBody([unpacked])), a);
    assert.deepEqual(metricsOf(a)[0].data, { kind: 'histogram', aggregationTemporality: 2, dataPoints: [{ attributes: {}, timeUnixNano: '9', count: 3, bucketCounts: [1, 2], explicitBounds: [10] }] });
  });

  it('trims a point attribute nested 100,000 levels and repairs invalid UTF-8, keeping every point', () => {
    const deep = kv(7, 'deep', nestedArrays(100_000, str(1, 'leaf')));
    const bad = kv(7, 'name', str(1, Buffer.from([0x61, 0xff, 0x62])));
    const body = metricsBody([gauge('g', [Buffer.concat([deep, fixed64(3, 1n)]), Buffer.concat([bad, fixed64(3, 2n)]), fixed64(3, 3n)])]);
    const d = decodeProtobufDirect('metrics', body);
    const [m] = metricsOf(d.request);
    assert.equal(m.data.kind === 'gauge' && m.data.dataPoints.length, 3);
    assert.equal(m.data.kind === 'gauge' && m.data.dataPoints[1].attributes.name, 'a\ufffdb');
    assert.equal(d.droppedByLimits, 1);
    assert.equal(d.repairedStrings, 1);
    // the reference decoder gives up on the whole request
    return assert.rejects(decodeOtlpRequest('metrics', body, 'protobuf'), (e) => e instanceof SfError && e.code === 'SF_E_OTLP_DECODE');
  });

  it('also trims the attributes of exponential histogram and summary points, which are carried as wire objects', () => {
    const deep = kv(1, 'deep', nestedArrays(10_000, str(1, 'leaf')));
    const exp = Buffer.concat([str(1, 'e'), wrap(10, 2, wrap(1, 2, Buffer.concat([deep, kv(1, 'ok', str(1, 'yes')), fixed64(4, 2n)])))]);
    const d = decodeProtobufDirect('metrics', metricsBody([exp]));
    const [m] = metricsOf(d.request);
    const raw = (m.data as { raw: { dataPoints: { attributes: { key: string }[]; count: string }[] } }).raw;
    assert.deepEqual(raw.dataPoints[0].attributes.map((a) => a.key), ['deep', 'ok']);
    assert.equal(raw.dataPoints[0].count, '2');
    assert.equal(d.droppedByLimits, 1);
  });

  it('drops a metric without data unrejected, has no item limit, and rejects malformed metrics with SF_E_OTLP_DECODE', () => {
    const d = decodeProtobufDirect('metrics', metricsBody([str(1, 'no data'), gauge('g', [fixed64(3, 1n)])]), { ...DEFAULT_OTLP_LIMITS, maxItems: 0 });
    assert.deepEqual(metricsOf(d.request).map((m) => m.name), ['g']);
    assert.deepEqual([d.wireItems, d.rejectedItems, d.overLimit], [2, 0, 0]);
    for (const body of [
      metricsBody([gauge('g', [Buffer.from([0x18, 0x01])])]), // time_unix_nano with varint wire type
      metricsBody([gauge('g', [Buffer.from([0x19, 0x01, 0x02])])]), // truncated fixed64
      metricsBody([Buffer.from([0x2a, 0x05, 0x0a])]), // gauge length past its end
      metricsBody([Buffer.from([0x00, 0x00])]), // field number 0
    ]) {
      assert.throws(() => decodeProtobufDirect('metrics', body), (e) => e instanceof SfError && e.code === 'SF_E_OTLP_DECODE' && /Metrics/.test(e.hint ?? ''), body.toString('hex'));
    }
  });
});

