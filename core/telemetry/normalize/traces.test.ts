import assert from 'node:assert/strict';
import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { captureLibrary, captureRequest, fakeContext } from '../../../test-support/telemetry.js';
import { decodeOtlpRequest } from '../otlp/decode.js';
import type { OtlpLogsRequest, OtlpTracesRequest } from '../otlp/types.js';
import { ATTRIBUTES, SPANS, type SpanDefinition } from '../../../schemas/generated/semconv.js';
import { annotateActionSpan } from '../spans.js';
import type { OtlpSpan } from '../otlp/types.js';
import { createNormalizer } from './index.js';

const SESSION = 'cc0fce32-f629-46aa-bab4-1eeb5519e738';

describe('host tool spans', () => {
  it('keep their native name, kind and ids, gain the active activation ids, and lose content attributes', async () => {
    const n = createNormalizer(fakeContext(captureLibrary(), { [SESSION]: { cwd: '/$WORK/proj', repositoryResolved: true, fingerprints: {} } }));
    const activation = n.logs((await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest).events[0].attributes['agent.skill.activation.id'];
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'claude-code' }), spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('claude');
    const turn = tracer.startSpan('invoke_agent claude');
    const tool = tracer.startSpan('execute_tool Bash', {
      kind: 1,
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'Bash', 'gen_ai.tool.call.id': 'toolu_9', 'session.id': SESSION, 'gen_ai.tool.call.arguments': '{"command":"rm -rf build"}' },
    }, trace.setSpan(context.active(), turn));
    tool.addEvent('output', { text: 'secret output' });
    tool.end();
    turn.end();
    const req = (await decodeOtlpRequest('traces', ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!, 'protobuf')) as OtlpTracesRequest;
    const out = n.traces(req);
    assert.equal(out.spans.length, 1, 'only the tool span of a session with an active skill');
    const s = out.spans[0].span;
    assert.equal(s.name, 'execute_tool Bash');
    assert.equal(s.spanId, tool.spanContext().spanId);
    assert.equal(s.parentSpanId, turn.spanContext().spanId);
    assert.deepEqual(s.attributes['agent.skill.activation.ids'], [activation]);
    assert.equal(s.attributes['agent.skill.attribution.fidelity'], 'inferred');
    assert.equal(s.attributes['gen_ai.tool.name'], 'Bash');
    assert.equal(s.attributes['gen_ai.tool.call.arguments'], undefined);
    assert.deepEqual(s.events, []);
    assert.equal(out.spans[0].resource['agent.host.name'], 'claude_code');
  });

  it('keep exactly the metadata span.agent.action defines (the registry, and so the hub, accepts every key they carry)', () => {
    const def = SPANS['span.agent.action'] as SpanDefinition;
    const defined = new Set<string>([...def.required, ...def.conditionallyRequired.map((c) => c.id), ...def.recommended, ...def.optIn]);
    const host: OtlpSpan = {
      traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'execute_tool bash', kind: 1, startTimeUnixNano: '1', endTimeUnixNano: '2',
      attributes: {
        'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash', 'session.id': 'ses_1', 'gen_ai.provider.name': 'openai', 'mcp.method.name': 'tools/call',
        'gen_ai.usage.input_tokens': 12, 'gen_ai.request.model': 'gpt-5', 'gen_ai.tool.call.arguments': '{"command":"cat secrets"}', 'custom.note': 'free text',
      },
      events: [], links: [], status: { code: 2, message: 'failed on /home/me/secrets' },
    };
    const out = annotateActionSpan(host, ['act_1'], 'inferred');
    for (const k of ['gen_ai.provider.name', 'mcp.method.name', 'gen_ai.usage.input_tokens', 'gen_ai.request.model', 'session.id']) {
      assert.equal(out.attributes[k], host.attributes[k], `${k} is host metadata Forge keeps`);
      assert.ok(defined.has(k), `${k} is kept, so span.agent.action must define it`);
      assert.ok(k in ATTRIBUTES, `${k} is kept, so the registry must define it`);
    }
    for (const k of Object.keys(out.attributes)) assert.ok(defined.has(k), `${k} is exported but span.agent.action does not define it`);
    assert.equal(out.attributes['gen_ai.tool.call.arguments'], undefined);
    assert.equal(out.attributes['custom.note'], undefined);
    assert.deepEqual(out.status, { code: 2 });
  });
});
