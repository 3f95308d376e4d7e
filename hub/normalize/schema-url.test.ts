import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogsRequest, type OtlpTracesRequest } from '../../core/telemetry/otlp/index.js';
import type { HealthReport } from '../query/health.js';
import { logsRequest, skillRecord, testSpan, tracesRequest } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import { batchEvents } from './normalize-batch.js';

/**
 * The schema URL of an event (spec: "pin and expose … OTel schema URL … on every relevant
 * record"). OTLP puts the schema of the records' attributes on ScopeLogs/ScopeSpans, where the
 * observer sends the convention's URL (core/observer/pipeline.ts); the resource's URL only stands
 * in for a scope without one.
 */

const FORGE = 'https://forge.dev/schemas/agent-skill/1.0.0';
const OTEL = 'https://opentelemetry.io/schemas/1.44.0';
const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

/** Logs as the observer exports them: the convention's URL on the scope only. */
function observerLogs(ids: string[]): OtlpLogsRequest {
  const req = logsRequest(ids.map((id) => skillRecord('agent.skill.selected', { 'agent.skill.event.id': id, 'agent.skill.activation.id': `act_${id}`, 'agent.skill.id': 'o/k:a' }, T0)), { 'service.name': 'codex', 'agent.adapter.name': 'sf-codex' });
  req.resources[0].scopes[0] = { ...req.resources[0].scopes[0], scope: { name: 'sf-observer', version: '0.1.0' }, schemaUrl: FORGE };
  return req;
}

function observerSpans(): OtlpTracesRequest {
  const req = tracesRequest([testSpan('activate_skill a', { 'agent.skill.event.id': 'span_1', 'agent.skill.activation.id': 'act_span', 'agent.skill.id': 'o/k:a', 'agent.skill.result': 'ok' }, T0, T0 + 5)], { 'service.name': 'claude-code' });
  req.resources[0].scopes[0] = { ...req.resources[0].scopes[0], scope: { name: 'sf-observer' }, schemaUrl: FORGE };
  return req;
}

const ctx = { accountId: 'acc', deviceId: 'dev', batchId: 'rb_x', receivedAtMs: T0, normalizerVersion: 'test', resolveRepository: () => ({ resolution: 'repo_unresolved' as const }) };

describe('hub normalizer: schema URL of an event', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it("takes each scope's schema URL, the resource's only for a scope without one", () => {
    const req = observerLogs(['s1']);
    const group = req.resources[0];
    group.schemaUrl = OTEL;
    group.scopes.push({ scope: { name: 'other' }, items: [skillRecord('agent.skill.loaded', { 'agent.skill.event.id': 's2' }, T0)] });
    const none = logsRequest([skillRecord('agent.skill.loaded', { 'agent.skill.event.id': 's3' }, T0)]);
    const urls = [...batchEvents(req, ctx), ...batchEvents(none, ctx)].map((e) => [e.row.eventId, e.row.schemaUrl]);
    assert.deepEqual(urls, [['s1', FORGE], ['s2', OTEL], ['s3', undefined]]);
    const spans = batchEvents(observerSpans(), ctx).map((e) => [e.row.eventName, e.row.schemaUrl]);
    assert.deepEqual(spans, [['span.agent.skill.activation', FORGE]]);
  });

  for (const encoding of ['protobuf', 'json'] as const) {
    it(`keeps the scope's schema URL of an observer export (${encoding}) in the stored row, the health view and a rebuild`, async () => {
      f = await telemetryFixture({ now: () => T0 + 60_000 });
      const u = f.user('alice');
      for (const req of [observerLogs(['e1', 'e2']), observerSpans()]) {
        const res = await f.post(req.signal, await encodeOtlpRequest(req, encoding), { auth: u.device, encoding });
        assert.equal(res.status, 200);
      }
      await f.telemetry.drain();
      const rows = async () => Promise.all(['e1', 'e2', 'span_1'].map(async (id) => (await f.getJson<{ schemaUrl?: string }>(`/api/v1/telemetry/events/${id}`, u.pat)).schemaUrl));
      assert.deepEqual(await rows(), [FORGE, FORGE, FORGE]);
      const health = await f.getJson<HealthReport>('/api/v1/telemetry/health', u.pat);
      assert.deepEqual(health.processes.map((p) => [p.serviceName, p.lastSchemaUrl]).sort(), [['claude-code', FORGE], ['codex', FORGE]]);
      // the raw batches keep it: a rebuild gives the same rows
      const before = [...f.telemetry.reader().allEvents()].map((e) => ({ ...e, normalizerVersion: undefined }));
      await f.telemetry.rebuild('9.9.9-schema-url-test');
      assert.deepEqual(await rows(), [FORGE, FORGE, FORGE]);
      assert.deepEqual([...f.telemetry.reader().allEvents()].map((e) => ({ ...e, normalizerVersion: undefined })), before);
    });
  }
});
