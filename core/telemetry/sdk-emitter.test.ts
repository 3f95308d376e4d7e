import assert from 'node:assert/strict';
import { startOtlpSink } from '../../test-support/otlp-sink.js';
import { buildEvent } from './event.js';
import { logsRequestToEnvelopes } from './envelope-otlp.js';
import { createSdkEmitter } from './sdk-emitter.js';
import type { OtlpLogsRequest } from './otlp/types.js';

describe('SDK emitter (real OTel JS SDK -> OTLP/HTTP protobuf)', () => {
  it('delivers an envelope with its EventName, attributes, timestamps and trace context intact', async () => {
    const sink = await startOtlpSink();
    try {
      const env = buildEvent({
        name: 'agent.skill.inventory.changed',
        attributes: {
          'agent.skill.event.id': 'evt_sdk', 'agent.skill.evidence.source': 'filesystem', 'agent.skill.evidence.fidelity': 'exact',
          'agent.skill.id': 'acme/greetings:hello-skill', 'agent.skill.package.id': 'acme/greetings', 'agent.skill.inventory.action': 'added',
          'agent.skill.content.hash': 'sha256:' + '1'.repeat(64), 'agent.skill.event.sequence': 4,
        },
        resource: { 'service.name': 'sf' },
        timestamp: '1796008761562000000',
        observedTimestamp: '1796008761563000123',
        traceId: 'ab'.repeat(16),
        spanId: 'cd'.repeat(8),
      });
      const emitter = await createSdkEmitter({ url: `${sink.origin}/v1/logs`, resource: { 'service.name': 'sf', 'service.version': '0.1.0' }, scope: { name: 'sf-cli' } });
      emitter.emit(env);
      await emitter.flush();
      await emitter.shutdown();
      assert.equal(sink.requests[0].encoding, 'protobuf');
      const [got] = logsRequestToEnvelopes(sink.requests[0].request as OtlpLogsRequest);
      assert.equal(got.event_name, 'agent.skill.inventory.changed');
      assert.deepEqual(got.attributes, env.attributes);
      assert.equal(got.timestamp, env.timestamp);
      assert.equal(got.observed_timestamp, env.observed_timestamp);
      assert.equal(got.trace_id, env.trace_id);
      assert.equal(got.span_id, env.span_id);
    } finally {
      await sink.close();
    }
  });

  it('fails open: flushing to a dead endpoint resolves', async () => {
    const emitter = await createSdkEmitter({ url: 'http://127.0.0.1:9/v1/logs', resource: { 'service.name': 'sf' }, timeoutMs: 500 });
    emitter.emit(buildEvent({ name: 'agent.skill.inventory.changed', attributes: { 'agent.skill.event.id': 'e', 'agent.skill.evidence.source': 'filesystem', 'agent.skill.evidence.fidelity': 'exact', 'agent.skill.id': 'a/b:c', 'agent.skill.package.id': 'a/b', 'agent.skill.inventory.action': 'removed' }, resource: { 'service.name': 'sf' }, observedTimestamp: '1' }));
    await emitter.flush();
    await emitter.shutdown();
  });
});
