import assert from 'node:assert/strict';
import { context, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { JsonLogsSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { issueToken } from '../auth/tokens.js';
import type { TimelinePage } from '../query/timeline.js';
import { startHub, type RunningHub } from '../serve.js';
import { tempDir } from '../../test-support/index.js';

/**
 * Acceptance: the real OpenTelemetry JS SDK (Node 20 line) exports logs and traces with its OTLP
 * protobuf exporters to a hub started by startHub on 127.0.0.1, and the records show up
 * normalized in the query API; the same SDK records serialized as OTLP/JSON do too.
 */

const FINGERPRINT = 'rfp_sdk_acceptance_repo';

function resource(instance: string) {
  return resourceFromAttributes({ 'service.name': 'claude-code', 'service.instance.id': instance, 'agent.adapter.name': 'sf-claude-adapter', 'forge.repository.fingerprint': FINGERPRINT });
}

function skillAttributes(eventId: string, activationId: string, extra: Record<string, string | number | boolean | string[]> = {}) {
  return {
    'agent.skill.schema.version': '1.0.0', 'agent.skill.event.id': eventId, 'agent.skill.evidence.source': 'native_otel', 'agent.skill.evidence.fidelity': 'exact',
    'session.id': 'sess_sdk', 'agent.skill.id': 'owner/code-quality:maintainability', 'agent.skill.activation.id': activationId, ...extra,
  };
}

async function waitFor<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('hub OTLP ingest with the real OpenTelemetry JS SDK', function () {
  this.timeout(60_000);
  let hub: RunningHub;
  let dir: { path: string; cleanup(): Promise<void> };
  let device: string;
  let pat: string;
  let repoId: string;

  before(async () => {
    dir = await tempDir('sf-hub-sdk-');
    hub = await startHub({ dataDir: dir.path, port: 0 });
    const user = hub.storage.accounts.createUser('sdk', false);
    device = issueToken(hub.storage.tokens, { userId: user.id, kind: 'device', name: 'laptop', scopes: ['telemetry:write'] }).secret;
    pat = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 'cli', scopes: ['registry:read'] }).secret;
    // linking a repository changes the account's attribution: it needs an unrestricted PAT
    const manage = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 'manage', scopes: ['registry:read', 'registry:write', 'telemetry:write'] }).secret;
    const res = await fetch(`${hub.url}/api/v1/telemetry/accounts/sdk/repositories`, {
      method: 'POST', body: JSON.stringify({ name: 'sdk/app', fingerprints: [FINGERPRINT] }), headers: { 'content-type': 'application/json', authorization: `Bearer ${manage}` },
    });
    repoId = ((await res.json()) as { id: string }).id;
  });
  after(async () => {
    await hub.close();
    await dir.cleanup();
  });

  const timeline = async (activationId: string) => {
    const res = await fetch(`${hub.url}/api/v1/telemetry/repositories/${repoId}/timeline?from=2020-01-01T00:00:00Z`, { headers: { authorization: `Bearer ${pat}` } });
    const page = (await res.json()) as TimelinePage;
    return page.sessions.flatMap((s) => s.activations).find((a) => a.activationId === activationId && a.actions.length > 0 && a.load !== 'pending');
  };

  it('protobuf: logs and traces from the SDK exporters (gzip) are normalized', async () => {
    const headers = { Authorization: `Bearer ${device}` };
    const logs = new LoggerProvider({
      resource: resource('inst-proto'),
      processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${hub.url}/v1/logs`, headers, compression: CompressionAlgorithm.GZIP }) })],
    });
    const tracer = new BasicTracerProvider({
      resource: resource('inst-proto'),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${hub.url}/v1/traces`, headers, compression: CompressionAlgorithm.GZIP }))],
    });
    const turn = tracer.getTracer('sf-claude-adapter', '0.1.0').startSpan('agent_turn', { attributes: { 'agent.turn.id': 'turn_sdk' } });
    const ctx = trace.setSpan(context.active(), turn);
    const logger = logs.getLogger('sf-claude-adapter', '0.1.0');
    logger.emit({ eventName: 'agent.skill.selected', severityNumber: SeverityNumber.INFO, context: ctx, attributes: skillAttributes('evt_sdk_1', 'act_sdk', { 'agent.skill.trigger.type': 'implicit' }) });
    logger.emit({ eventName: 'agent.skill.loaded', severityNumber: SeverityNumber.INFO, context: ctx, attributes: skillAttributes('evt_sdk_2', 'act_sdk', { 'agent.skill.instructions.file_count': 3 }) });
    const tool = tracer.getTracer('sf-claude-adapter').startSpan('execute_tool Edit', {
      attributes: { 'agent.action.type': 'filesystem.write', 'agent.skill.activation.ids': ['act_sdk'], 'agent.skill.attribution.fidelity': 'exact', 'gen_ai.tool.name': 'Edit', 'session.id': 'sess_sdk' },
    }, ctx);
    tool.end();
    turn.end();
    await logs.forceFlush();
    await tracer.forceFlush();
    const activation = await waitFor(() => timeline('act_sdk'), 'the SDK activation in the timeline');
    assert.deepEqual([activation.load, activation.triggerType, activation.instructions?.fileCount], ['complete', 'implicit', 3]);
    assert.deepEqual(activation.actions.map((a) => [a.actionType, a.source, a.attributionFidelity]), [['filesystem.write', 'span', 'exact']]);
    const selected = (await (await fetch(`${hub.url}/api/v1/telemetry/events/evt_sdk_1`, { headers: { authorization: `Bearer ${pat}` } })).json()) as { traceId: string; repositoryId: string };
    assert.equal(selected.traceId, turn.spanContext().traceId);
    assert.equal(selected.repositoryId, repoId);
    await logs.shutdown();
    await tracer.shutdown();
  });

  it('OTLP/JSON: the same SDK records serialized as JSON are normalized', async () => {
    const logExporter = new InMemoryLogRecordExporter();
    const logs = new LoggerProvider({ resource: resource('inst-json'), processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
    const spanExporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ resource: resource('inst-json'), spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
    const logger = logs.getLogger('sf-claude-adapter');
    logger.emit({ eventName: 'agent.skill.selected', attributes: skillAttributes('evt_json_1', 'act_json', { 'agent.skill.trigger.type': 'explicit' }) });
    logger.emit({ eventName: 'agent.skill.loaded', attributes: skillAttributes('evt_json_2', 'act_json') });
    tracer.getTracer('t').startSpan('execute_tool Bash', { attributes: { 'agent.action.type': 'process.execute', 'agent.skill.activation.ids': ['act_json'], 'agent.skill.attribution.fidelity': 'exact' } }).end();
    await logs.forceFlush();
    const post = async (path: string, body: Uint8Array) => {
      const res = await fetch(`${hub.url}${path}`, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/json', authorization: `Bearer ${device}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(await res.json(), {});
    };
    await post('/v1/logs', JsonLogsSerializer.serializeRequest(logExporter.getFinishedLogRecords())!);
    await post('/v1/traces', JsonTraceSerializer.serializeRequest(spanExporter.getFinishedSpans())!);
    const activation = await waitFor(() => timeline('act_json'), 'the JSON activation in the timeline');
    assert.deepEqual([activation.load, activation.triggerType], ['complete', 'explicit']);
    assert.deepEqual(activation.actions.map((a) => a.actionType), ['process.execute']);
  });
});
