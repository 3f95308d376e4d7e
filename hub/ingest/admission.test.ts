import assert from 'node:assert/strict';
import type { OtlpLogsRequest, OtlpMetricsRequest } from '../../core/telemetry/otlp/index.js';
import { admitRequest } from './admission.js';
import { CONTENT_ATTRIBUTES, isIdentityAttribute, METADATA_ALLOWLIST } from './allowlist.js';
import { CardinalityGuard, OTHER_VALUE } from './cardinality.js';

const logs = (attributes: Record<string, unknown>[], body?: string): OtlpLogsRequest => ({
  signal: 'logs',
  resources: [{ resource: { attributes: { 'service.name': 'x', 'telemetry.sdk.name': 'opentelemetry', 'process.command_line': 'node secret.js' } }, scopes: [{ scope: { name: 'sf-observer' }, items: attributes.map((a) => ({ timeUnixNano: '1', observedTimeUnixNano: '1', attributes: a as never, ...(body ? { body } : {}) })) }] }],
});

describe('hub ingest admission', () => {
  it('derives the metadata-only allowlist from the semconv registry', () => {
    assert.ok(METADATA_ALLOWLIST.has('agent.skill.activation.id'));
    assert.ok(METADATA_ALLOWLIST.has('gen_ai.request.model'));
    for (const content of ['agent.skill.source.path', 'agent.skill.feedback.body.ref', 'vcs.ref.head.name', 'vcs.repository.url.full']) {
      assert.ok(CONTENT_ATTRIBUTES.has(content) && !METADATA_ALLOWLIST.has(content), content);
    }
    assert.ok(!METADATA_ALLOWLIST.has('gen_ai.input.messages'));
    assert.ok(isIdentityAttribute('agent.skill.event.id') && isIdentityAttribute('agent.skill.content.hash') && !isIdentityAttribute('gen_ai.request.model'));
  });

  it('drops content and non-allowlisted attributes (resource included) unless content collection is on, counting them', () => {
    const guard = new CardinalityGuard(100, 60_000, 10);
    const req = logs([{ 'agent.skill.id': 'o/n:s', 'agent.skill.event.id': 'evt_c', 'gen_ai.prompt': 'hi', 'custom.x': 1 }], 'a body');
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 10, cardinality: guard.scope('a') });
    assert.deepEqual([counts.accepted, counts.droppedContent], [1, 4]);
    const [rec] = req.resources[0].scopes[0].items;
    assert.deepEqual(rec.attributes, { 'agent.skill.id': 'o/n:s', 'agent.skill.event.id': 'evt_c' });
    assert.equal(rec.body, undefined);
    assert.deepEqual(req.resources[0].resource.attributes, { 'service.name': 'x', 'telemetry.sdk.name': 'opentelemetry' });
    const kept = logs([{ 'gen_ai.prompt': 'hi' }], 'a body');
    assert.equal(admitRequest(kept, { contentCollection: true, maxRecords: 10, cardinality: guard.scope('b') }).droppedContent, 0);
    assert.equal(kept.resources[0].scopes[0].items[0].body, 'a body');
  });

  it('keeps the deprecated `event.name` log attribute for metadata-only accounts: it is the event name, not content', () => {
    const guard = new CardinalityGuard(100, 60_000, 10);
    const req = logs([{ 'event.name': 'agent.skill.selected', 'agent.skill.id': 'o/n:s', 'agent.skill.event.id': 'evt_old' }]);
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 10, cardinality: guard.scope('a') });
    assert.deepEqual(req.resources[0].scopes[0].items[0].attributes, { 'event.name': 'agent.skill.selected', 'agent.skill.id': 'o/n:s', 'agent.skill.event.id': 'evt_old' });
    assert.equal(counts.droppedContent, 1, "only the resource's process.command_line");
  });

  it('folds new values of a non-identity key past the distinct-values limit, per account and window', () => {
    let now = 0;
    const guard = new CardinalityGuard(3, 1000, 10, () => now);
    const req = logs(Array.from({ length: 6 }, (_, i) => ({ 'gen_ai.request.model': `model-${i}`, 'agent.skill.event.id': `evt_${i}` })));
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 10, cardinality: guard.scope('a') });
    assert.equal(counts.foldedCardinality, 3);
    const items = req.resources[0].scopes[0].items;
    assert.deepEqual(items.map((r) => r.attributes['gen_ai.request.model']), ['model-0', 'model-1', 'model-2', OTHER_VALUE, OTHER_VALUE, OTHER_VALUE]);
    assert.deepEqual(items.map((r) => r.attributes['agent.skill.event.id']), ['evt_0', 'evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5'], 'identities are never folded');
    const other = logs([{ 'gen_ai.request.model': 'model-9' }]);
    admitRequest(other, { contentCollection: false, maxRecords: 10, cardinality: guard.scope('b') });
    assert.equal(other.resources[0].scopes[0].items[0].attributes['gen_ai.request.model'], 'model-9', 'accounts have separate budgets');
    now = 1000;
    const later = logs([{ 'gen_ai.request.model': 'model-9' }]);
    admitRequest(later, { contentCollection: false, maxRecords: 10, cardinality: guard.scope('a') });
    assert.equal(later.resources[0].scopes[0].items[0].attributes['gen_ai.request.model'], 'model-9', 'a new window starts fresh');
  });

  it('bounds the accounts the cardinality guard remembers', () => {
    const guard = new CardinalityGuard(1, 60_000, 2);
    guard.scope('a').admit('k', 'v1');
    guard.scope('b').admit('k', 'v1');
    guard.scope('c').admit('k', 'v1');
    assert.equal(guard.scope('a').admit('k', 'v2'), 'v2', 'a was forgotten (least recently used), so its budget restarted');
  });

  it('keeps metric points to the bounded dimensions and rejects points past the per-request limit', () => {
    const req: OtlpMetricsRequest = { signal: 'metrics', resources: [{ resource: { attributes: {} }, scopes: [{ scope: { name: 'sf-observer' }, items: [
      { name: 'agent.skill.activation.count', data: { kind: 'sum', aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: '1', asInt: 1, attributes: { 'agent.host.name': 'codex', 'agent.skill.id': 'o/n:s' } }] } },
      { name: 'other', data: { kind: 'gauge', dataPoints: [{ timeUnixNano: '1', asDouble: 1, attributes: {} }, { timeUnixNano: '1', asDouble: 2, attributes: {} }] } },
    ] }] }] };
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 2, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') });
    assert.deepEqual([counts.accepted, counts.rejected, counts.droppedContent], [1, 2, 1]);
    const [m] = req.resources[0].scopes[0].items;
    assert.deepEqual(m.data.kind === 'sum' && m.data.dataPoints[0].attributes, { 'agent.host.name': 'codex' });
  });

  it('applies the same checks to exponential-histogram and summary point attributes as to the other points', () => {
    const attrs = { 'agent.host.name': { secret: 'prompt text' }, 'agent.skill.trigger.type': 'a\ud800b', 'free.form': 'x' };
    const wire = [
      { key: 'agent.host.name', value: { kvlistValue: { values: [{ key: 'secret', value: { stringValue: 'prompt text' } }] } } },
      { key: 'agent.skill.trigger.type', value: { stringValue: 'a\ud800b' } },
      { key: 'free.form', value: { stringValue: 'x' } },
    ];
    const req: OtlpMetricsRequest = { signal: 'metrics', resources: [{ resource: { attributes: {} }, scopes: [{ scope: { name: 'sf-observer' }, items: [
      { name: 'g', data: { kind: 'gauge', dataPoints: [{ timeUnixNano: '1', asDouble: 1, attributes: attrs as never }] } },
      { name: 'e', data: { kind: 'exponentialHistogram', raw: { dataPoints: [{ timeUnixNano: '1', count: '1', attributes: structuredClone(wire) }] } } },
      { name: 's', data: { kind: 'summary', raw: { dataPoints: [{ timeUnixNano: '1', count: '1', attributes: structuredClone(wire) }] } } },
    ] }] }] };
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') });
    assert.deepEqual([counts.droppedContent, counts.typeMismatches, counts.sanitized], [3, 3, 3], 'the free-form key (content) and the kvlist (a schema validation failure) of each point dropped, the lone surrogate repaired in each');
    const [gauge, exp, summary] = req.resources[0].scopes[0].items;
    assert.deepEqual(gauge.data.kind === 'gauge' && gauge.data.dataPoints[0].attributes, { 'agent.skill.trigger.type': 'a\ufffdb' });
    for (const m of [exp, summary]) {
      assert.deepEqual((m.data as { raw: { dataPoints: { attributes: unknown }[] } }).raw.dataPoints[0].attributes, [{ key: 'agent.skill.trigger.type', value: { stringValue: 'a\ufffdb' } }], m.name);
    }
  });

  it('counts a registry attribute of the wrong type as a schema validation failure, not as content: dropped without content opt-in, kept with it', () => {
    const attrs = () => ({ 'agent.skill.event.id': 'e', 'agent.skill.instructions.byte_count': '18420', 'agent.skill.result': { prompt: 'x' }, 'custom.note': 'n' });
    const off = logs([attrs()]);
    const counts = admitRequest(off, { contentCollection: false, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') });
    assert.deepEqual([counts.typeMismatches, counts.droppedContent], [2, 2], "the count sent as a string and the kvlist result; the free-form key and the resource's process.command_line");
    assert.deepEqual(off.resources[0].scopes[0].items[0].attributes, { 'agent.skill.event.id': 'e' });
    const on = logs([attrs()]);
    const kept = admitRequest(on, { contentCollection: true, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') });
    assert.deepEqual([kept.typeMismatches, kept.droppedContent], [2, 0], 'kept as sent, still counted');
    assert.equal(on.resources[0].scopes[0].items[0].attributes['agent.skill.instructions.byte_count'], '18420');
  });

  it('keeps enum values outside the registry (enums are open) and counts them, wherever they are sent', () => {
    const req = logs([
      { 'agent.skill.event.id': 'e1', 'agent.skill.evidence.source': 'telepathy', 'agent.skill.evidence.fidelity': 'certain', 'agent.skill.trigger.type': 'magic', 'agent.skill.phase': 'selected' },
      { 'agent.skill.event.id': 'e2', 'agent.skill.result': 'success', 'agent.skill.evidence.fidelity': 'exact', 'agent.skill.risk.flags': ['destructive_action'] },
    ]);
    req.resources[0].resource.attributes['agent.runtime.autonomy.mode'] = 'yolo';
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') });
    assert.equal(counts.unknownEnumValues, 5, 'telepathy, certain, magic, success and the resource\'s yolo; registered members and closed lists are not enums outside the registry');
    assert.equal(counts.perResource[0].unknownEnumValues, 5);
    assert.equal(counts.droppedContent, 1, "only the resource's process.command_line");
    const [a, b] = req.resources[0].scopes[0].items;
    assert.deepEqual([a.attributes['agent.skill.evidence.source'], a.attributes['agent.skill.trigger.type'], b.attributes['agent.skill.result']], ['telepathy', 'magic', 'success']);
    const metric: OtlpMetricsRequest = { signal: 'metrics', resources: [{ resource: { attributes: {} }, scopes: [{ scope: { name: 'sf-observer' }, items: [
      { name: 'agent.skill.activation.count', data: { kind: 'sum', aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: '1', asInt: 1, attributes: { 'agent.skill.trigger.type': 'magic' } }] } },
    ] }] }] };
    assert.equal(admitRequest(metric, { contentCollection: false, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') }).unknownEnumValues, 1, 'a metric dimension too');
  });

  it('repairs lone surrogates in keys and values', () => {
    const req = logs([{ 'agent.skill.trigger.source': 'a\ud800b' }]);
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') });
    assert.equal(counts.sanitized, 1);
    assert.equal(req.resources[0].scopes[0].items[0].attributes['agent.skill.trigger.source'], 'a\ufffdb');
  });
});

describe('hub ingest cardinality guard bounds', () => {
  const REGISTERED = new Set(['agent.skill.trigger.source']);

  it('counts array elements against the distinct-values limit', () => {
    const guard = new CardinalityGuard(2, 60_000, 10, Date.now, { registered: REGISTERED });
    const req = logs(Array.from({ length: 4 }, (_, i) => ({ 'agent.skill.event.id': `e${i}`, 'agent.skill.risk.flags': [`flag-${i}`, 'destructive_action'] })));
    // content on: a metadata-only account would drop the unlisted flags instead (see the next test)
    const counts = admitRequest(req, { contentCollection: true, maxRecords: 10, cardinality: guard.scope('a') });
    assert.equal(counts.foldedCardinality, 2);
    const flags = req.resources[0].scopes[0].items.map((r) => r.attributes['agent.skill.risk.flags']);
    assert.deepEqual(flags, [['flag-0', 'destructive_action'], ['flag-1', 'destructive_action'], [OTHER_VALUE, 'destructive_action'], [OTHER_VALUE, 'destructive_action']]);
  });

  it('drops elements outside a closed list of values for a metadata-only account, counting them', () => {
    const req = logs([{ 'agent.skill.event.id': 'e', 'agent.skill.risk.flags': ['destructive_action', 'SECRET'], 'agent.skill.policy.capability': 'SECRET' }]);
    const counts = admitRequest(req, { contentCollection: false, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a') });
    assert.equal(counts.droppedContent, 3, "the SECRET flag, the SECRET capability and the resource's process.command_line");
    assert.deepEqual(req.resources[0].scopes[0].items[0].attributes, { 'agent.skill.event.id': 'e', 'agent.skill.risk.flags': ['destructive_action'] });
  });

  it('tracks a bounded number of keys outside the registry per account and window; registry keys are never crowded out', () => {
    const guard = new CardinalityGuard(10, 60_000, 10, Date.now, { maxKeys: 3, registered: REGISTERED });
    const scope = guard.scope('a');
    for (let i = 0; i < 3; i++) assert.equal(scope.admit(`free.${i}`, 'v'), 'v');
    for (let i = 3; i < 1000; i++) assert.equal(scope.admit(`free.${i}`, 'v'), OTHER_VALUE);
    assert.equal(scope.folded, 997);
    assert.equal(scope.admit('agent.skill.trigger.source', 'x'), 'x');
  });

  it('drops attribute keys past the key length limit with content on, counting them', () => {
    const req = logs([{ 'agent.skill.event.id': 'e', [`k${'x'.repeat(300)}`]: 'v', short: 'v' }]);
    const counts = admitRequest(req, { contentCollection: true, maxRecords: 10, cardinality: new CardinalityGuard(10, 1000, 10).scope('a'), maxKeyLength: 256 });
    assert.equal(counts.droppedLimits, 1);
    assert.deepEqual(Object.keys(req.resources[0].scopes[0].items[0].attributes), ['agent.skill.event.id', 'short']);
  });

  it('stamps an id-less record with the fingerprint of the record as received, whatever admission then drops or folds', () => {
    const stamp = (content: boolean, maxDistinct: number) => {
      const guard = new CardinalityGuard(maxDistinct, 60_000, 10);
      guard.scope('a').admit('gen_ai.request.model', 'other-model');
      const req = logs([{ 'gen_ai.request.model': 'm', 'custom.note': 'n' }]);
      const counts = admitRequest(req, { contentCollection: content, maxRecords: 10, cardinality: guard.scope('a') });
      assert.equal(counts.stamped, 1);
      return req.resources[0].scopes[0].items[0].attributes['agent.skill.event.id'];
    };
    const id = stamp(false, 1);
    assert.match(String(id), /^fp_[0-9a-f]{32}$/);
    assert.deepEqual([stamp(true, 1), stamp(false, 10), stamp(true, 10)], [id, id, id]);
  });
});
