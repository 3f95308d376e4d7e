import assert from 'node:assert/strict';
import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { captureLibrary, captureRequest, fakeContext } from '../../../test-support/telemetry.js';
import { decodeOtlpRequest } from '../otlp/decode.js';
import type { OtlpLogsRequest, OtlpTracesRequest } from '../otlp/types.js';
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
});
