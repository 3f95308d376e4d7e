import assert from 'node:assert/strict';
import fc from 'fast-check';
import { METRIC_ALLOWED_DIMENSIONS, METRICS, SEMCONV_SCHEMA_URL, type MetricName } from '../../schemas/generated/semconv.js';
import { ClientMetrics } from './metrics.js';
import { encodeOtlpRequest, decodeOtlpRequest, type OtlpMetricsRequest } from './otlp/index.js';

const IDENTITY = {
  'agent.skill.id': 'acme/greetings:hello-skill',
  'agent.skill.name': 'hello-skill',
  'agent.skill.package.id': 'acme/greetings',
  'agent.skill.content.hash': 'sha256:' + '1'.repeat(64),
  'artifact.version': '1.2.0',
  'artifact.hash': 'sha256:' + '9'.repeat(64),
  'forge.repository.fingerprint': 'r'.repeat(64),
  'forge.worktree.fingerprint': 'w'.repeat(64),
  'forge.repository.id': 'repo_1',
  'vcs.repository.name': 'acme/app',
  'session.id': 'cc0fce32-f629-46aa-bab4-1eeb5519e738',
  'gen_ai.conversation.id': '01a22a79',
  'agent.turn.id': 'turn-1',
  'agent.skill.activation.id': 'act_1',
  'agent.skill.activation.ids': ['act_1', 'act_2'],
  'agent.skill.event.id': 'evt_1',
};
const DIMENSIONS = {
  'agent.host.name': 'claude_code', 'agent.adapter.name': 'sf-claude-code', 'agent.skill.source.type': 'forge', 'agent.skill.trigger.type': 'implicit',
  'agent.skill.result': 'ok', 'agent.skill.evidence.source': 'native_otel', 'agent.skill.evidence.fidelity': 'exact',
};
const NAMES = Object.keys(METRICS) as MetricName[];
const seriesKeys = (req: OtlpMetricsRequest): string[] =>
  req.resources.flatMap((r) => r.scopes.flatMap((s) => s.items.flatMap((m) => ('dataPoints' in m.data ? m.data.dataPoints.flatMap((p) => Object.keys(p.attributes)) : []))));

describe('client metrics: no identity ever becomes a dimension', () => {
  it('drops skill, release, repository, session and activation identity from every one of the five metrics', async () => {
    assert.equal(NAMES.length, 5);
    const m = new ClientMetrics('1');
    for (const name of NAMES) {
      const { droppedKeys } = m.record(name, name.endsWith('duration') ? 0.02 : 1, { ...IDENTITY, ...DIMENSIONS });
      for (const key of Object.keys(IDENTITY)) assert.ok(droppedKeys.includes(key), `${name} kept ${key}`);
    }
    const req = m.collect('2', { 'service.name': 'sf-observer' }, { name: 'sf-observer' })!;
    // and it survives the wire: decode what would be exported
    const wire = (await decodeOtlpRequest('metrics', await encodeOtlpRequest(req, 'protobuf'), 'protobuf')) as OtlpMetricsRequest;
    const keys = new Set(seriesKeys(wire));
    for (const key of Object.keys(IDENTITY)) assert.ok(!keys.has(key), `exported ${key}`);
    for (const key of keys) assert.ok((METRIC_ALLOWED_DIMENSIONS as readonly string[]).includes(key), `unexpected dimension ${key}`);
    assert.ok(keys.has('agent.skill.trigger.type'));
  });

  it('property: whatever attributes are recorded, exported series only carry registry dimensions with vocabulary values', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.dictionary(fc.oneof(fc.constantFrom(...Object.keys(IDENTITY), ...Object.keys(DIMENSIONS)), fc.string({ maxLength: 12 })), fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constantFrom('implicit', 'ok', 'codex', 'exact'))),
        (name, attrs) => {
          const m = new ClientMetrics('1');
          m.record(name, 1, attrs);
          const req = m.collect('2', { 'service.name': 's' }, { name: 's' })!;
          const allowed = new Set<string>(METRICS[name].dimensions);
          for (const k of seriesKeys(req)) if (!allowed.has(k)) return false;
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('caps series per metric: past the cap a sample loses its dimensions instead of adding a series', () => {
    const m = new ClientMetrics('1', 3);
    for (const t of ['explicit', 'implicit', 'host_policy', 'restored', 'unknown']) m.record('agent.skill.activation.count', 1, { 'agent.skill.trigger.type': t });
    const req = m.collect('2', { 'service.name': 's' }, { name: 's' })!;
    const metric = req.resources[0].scopes[0].items[0];
    assert.ok(metric.data.kind === 'sum');
    assert.equal(metric.data.dataPoints.length, 4);
    assert.deepEqual(metric.data.dataPoints.find((p) => Object.keys(p.attributes).length === 0)?.asInt, 2);
    assert.equal(metric.data.aggregationTemporality, 2);
  });

  it('aggregates the activation duration histogram in seconds', () => {
    const m = new ClientMetrics('1');
    for (const v of [0.004, 0.02, 3]) m.record('agent.skill.activation.duration', v, DIMENSIONS);
    const [metric] = m.collect('2', { 'service.name': 's' }, { name: 's' })!.resources[0].scopes[0].items;
    assert.equal(metric.unit, 's');
    assert.ok(metric.data.kind === 'histogram');
    const p = metric.data.dataPoints[0];
    assert.equal(p.count, 3);
    assert.equal(p.min, 0.004);
    assert.equal(p.max, 3);
  });

  it('exports under the semantic convention schema URL, like the logs and spans', async () => {
    const m = new ClientMetrics('1');
    m.record('agent.skill.activation.count', 1, DIMENSIONS);
    const req = m.collect('2', { 'service.name': 's' }, { name: 's' })!;
    assert.equal(req.resources[0].scopes[0].schemaUrl, SEMCONV_SCHEMA_URL);
    const wire = (await decodeOtlpRequest('metrics', await encodeOtlpRequest(req, 'protobuf'), 'protobuf')) as OtlpMetricsRequest;
    assert.equal(wire.resources[0].scopes[0].schemaUrl, SEMCONV_SCHEMA_URL);
  });
});
