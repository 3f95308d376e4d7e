import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeOtlpRequest } from './decode.js';
import { parseOtlpJson } from './json-int64.js';
import type { OtlpLogsRequest, OtlpMetricsRequest, OtlpTracesRequest } from './types.js';

const T = '1796110248448123457'; // ns, beyond 2^53: a double reads it as ...392
const BIG = '9007199254740993'; // 2^53 + 1

/** OTLP/JSON text with the markers replaced by bare number literals. */
const literal = (json: object, values: Record<string, string>) => Object.entries(values).reduce((t, [marker, v]) => t.split(`"${marker}"`).join(v), JSON.stringify(json));
const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('OTLP/JSON int64 number literals', () => {
  it('keeps log times and an intValue beyond 2^53 exact', async () => {
    const text = literal({ resourceLogs: [{ resource: { attributes: [] }, scopeLogs: [{ logRecords: [{
      timeUnixNano: '@T', observedTimeUnixNano: '@O', body: { intValue: '@NEG' },
      attributes: [{ key: 'n', value: { intValue: '@I' } }, { key: 'small', value: { intValue: '@S' } }],
    }] }] }] }, { '@T': T, '@O': `${T.slice(0, -1)}8`, '@I': BIG, '@NEG': `-${BIG}`, '@S': '42' });
    assert.match(text, new RegExp(`"timeUnixNano":${T}`));
    const req = (await decodeOtlpRequest('logs', utf8(text), 'json')) as OtlpLogsRequest;
    const rec = req.resources[0].scopes[0].items[0];
    assert.equal(rec.timeUnixNano, T);
    assert.equal(rec.observedTimeUnixNano, `${T.slice(0, -1)}8`);
    assert.equal(rec.attributes.n, BigInt(BIG));
    assert.equal(rec.attributes.small, 42);
    assert.equal(rec.body, -BigInt(BIG));
  });

  it('keeps span times and a metric asInt exact, whatever the whitespace around the colon', async () => {
    const spans = literal({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [{
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 's', kind: 1, startTimeUnixNano: '@S', endTimeUnixNano: '@E',
      events: [{ timeUnixNano: '@S', name: 'e' }],
    }] }] }] }, { '@S': T, '@E': `${T.slice(0, -1)}9` }).replace(`"endTimeUnixNano":${T.slice(0, -1)}9`, `"endTimeUnixNano" :\n\t ${T.slice(0, -1)}9`);
    const span = ((await decodeOtlpRequest('traces', utf8(spans), 'json')) as OtlpTracesRequest).resources[0].scopes[0].items[0];
    assert.deepEqual([span.startTimeUnixNano, span.endTimeUnixNano, span.events[0].timeUnixNano], [T, `${T.slice(0, -1)}9`, T]);
    const metrics = literal({ resourceMetrics: [{ resource: { attributes: [] }, scopeMetrics: [{ metrics: [{ name: 'm', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ startTimeUnixNano: '@S', timeUnixNano: '@T', asInt: '@I' }] } }] }] }] }, { '@S': T, '@T': T, '@I': BIG });
    const metric = ((await decodeOtlpRequest('metrics', utf8(metrics), 'json')) as OtlpMetricsRequest).resources[0].scopes[0].items[0];
    assert.equal(metric.data.kind, 'sum');
    const [point] = metric.data.kind === 'sum' ? metric.data.dataPoints : [];
    assert.deepEqual([point.startTimeUnixNano, point.timeUnixNano, point.asInt], [T, T, BIG]);
  });

  it('leaves strings, other keys and non-integer literals alone', () => {
    const inString = `{"a":"\\"timeUnixNano\\": ${T}","b":{"stringValue":"x, ${T}"}}`;
    assert.deepEqual(parseOtlpJson(inString), JSON.parse(inString));
    const otherKeys = `{"a\\"timeUnixNano": ${T}, "count": ${T}, "timeUnixNanos": ${T}, "x":[${T}]}`;
    assert.deepEqual(parseOtlpJson(otherKeys), JSON.parse(otherKeys));
    const doubles = `{"timeUnixNano": ${T}.0, "asInt": 1.5e18, "intValue": 17961102484481234e2}`;
    assert.deepEqual(parseOtlpJson(doubles), JSON.parse(doubles));
    assert.throws(() => parseOtlpJson(`{"timeUnixNano": ${T}`), SyntaxError);
  });

  it('parses every OTLP/JSON fixture as JSON.parse does', async () => {
    const root = join(process.cwd(), 'fixtures', 'otlp');
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.json'));
    assert.ok(files.length > 0);
    for (const f of files) {
      const text = await readFile(join(root, f), 'utf8');
      assert.deepEqual(parseOtlpJson(text), JSON.parse(text), f);
    }
  });
});
