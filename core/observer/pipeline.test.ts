import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { activationSpan } from '../telemetry/spans.js';
import type { NormalizedOutput } from '../telemetry/normalize/index.js';
import { DeliveryWorker } from './delivery.js';
import { ExportPipeline } from './pipeline.js';
import { MASK } from './redact.js';
import { ObserverStore } from './store.js';

/** The export pipeline on a real LMDB store: what it queues for a destination. */
async function withPipeline(fn: (pipeline: ExportPipeline, queued: () => string[]) => Promise<void> | void): Promise<void> {
  const tmp = await tempDir('sf-pipeline-');
  const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
  try {
    // a worker that is never started: the test reads its queue
    const worker = new DeliveryWorker({ kind: 'file', name: 'local', type: 'file', path: join(tmp.path, 'out.jsonl'), rotation: { maxMegabytes: 1, maxBackups: 0 } }, store, { maxAgeMs: 3600_000 });
    const pipeline = new ExportPipeline({ store, workers: [worker], maxBatchRecords: 100, batchDelayMs: 60_000, maxQueueRecords: 1000, metricsResource: {} });
    const queued = () => {
      const bodies: string[] = [];
      for (let head = store.head('local'); head; head = store.head('local')) {
        bodies.push(head.item.body);
        store.ack('local', head.key);
      }
      return bodies;
    };
    await fn(pipeline, queued);
  } finally {
    await store.close();
    await tmp.cleanup();
  }
}

const SECRET_NAME = 'sk-MARKSECRETNAME0123456789abcdef';

describe('observer export pipeline (real LMDB store)', () => {
  it('masks a credential-looking skill name in the activation span name as in its attributes', async () => {
    const span = activationSpan({
      traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', start: '1000', end: '2000', failed: false,
      attributes: {
        'agent.skill.name': SECRET_NAME, 'agent.skill.id': 'acme/x:y', 'agent.skill.activation.id': 'act_1',
        'agent.skill.evidence.source': 'native_otel', 'agent.skill.evidence.fidelity': 'exact', 'gen_ai.operation.name': 'activate_skill',
      },
    });
    assert.ok(span.name.includes(SECRET_NAME), 'the normalizer names the span after the skill');
    const out: NormalizedOutput = { events: [], spans: [{ resource: { 'service.name': 'claude-code' } as never, span }], metrics: [] };
    await withPipeline((pipeline, queued) => {
      pipeline.submit(out);
      pipeline.flush();
      const [body] = queued();
      assert.ok(!body.includes('MARKSECRETNAME'), body);
      assert.ok(body.includes(`"name":"activate_skill ${MASK}"`), body);
    });
  });
});
