import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { activationSpan } from '../telemetry/spans.js';
import type { NormalizedOutput } from '../telemetry/normalize/index.js';
import type { ObservationEnvelope } from '../../schemas/generated/observation-envelope.js';
import { DeliveryWorker } from './delivery.js';
import { ExportPipeline } from './pipeline.js';
import { MASK } from './redact.js';
import { ObserverStore, type QueueItem } from './store.js';

/** The export pipeline on a real LMDB store: what it queues for a destination. */
async function withPipeline(fn: (pipeline: ExportPipeline, queued: () => string[], items: () => QueueItem[], store: ObserverStore) => Promise<void> | void): Promise<void> {
  const tmp = await tempDir('sf-pipeline-');
  const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
  try {
    // a worker that is never started: the test reads its queue
    const worker = new DeliveryWorker({ kind: 'file', name: 'local', type: 'file', path: join(tmp.path, 'out.jsonl'), rotation: { maxMegabytes: 1, maxBackups: 0 } }, store, { maxAgeMs: 3600_000 });
    const pipeline = new ExportPipeline({ store, workers: [worker], maxBatchRecords: 100, batchDelayMs: 60_000, maxQueueRecords: 1000, metricsResource: {} });
    const queued = () => items().map((i) => i.body);
    const items = () => {
      const out: QueueItem[] = [];
      for (let head = store.head('local'); head; head = store.head('local')) {
        out.push(head.item);
        store.ack('local', head.key);
      }
      return out;
    };
    await fn(pipeline, queued, items, store);
  } finally {
    await store.close();
    await tmp.cleanup();
  }
}

/** An event as the normalizer emits it: `n` names it (agent.skill.event.id). */
const event = (n: number, name = 'agent.skill.loaded'): ObservationEnvelope => ({
  event_name: name, observed_timestamp: '2026-12-01T00:00:00.000Z', resource: { 'service.name': 'sf-observer' } as never, attributes: { 'agent.skill.event.id': `e${n}` } as never,
});
const span = (n: number) => activationSpan({
  traceId: '0af7651916cd43dd8448eb211c80319c', spanId: n.toString(16).padStart(16, '1'), start: '1000', end: '2000', failed: false,
  attributes: { 'agent.skill.name': `s${n}`, 'agent.skill.id': 'acme/x:y', 'agent.skill.activation.id': `act_${n}`, 'agent.skill.evidence.source': 'native_otel', 'agent.skill.evidence.fidelity': 'exact', 'gen_ai.operation.name': 'activate_skill' },
});
type Json = { resourceLogs?: { scopeLogs: { logRecords: { attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[]; resourceSpans?: { scopeSpans: { spans: { spanId: string }[] }[] }[] };
/** The event ids (logs) or span ids (traces) of one queued request, in order. */
const idsOf = (body: string): string[] => {
  const j = JSON.parse(body) as Json;
  return j.resourceLogs
    ? j.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords.map((l) => l.attributes.find((a) => a.key === 'agent.skill.event.id')!.value.stringValue!)))
    : j.resourceSpans!.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.spanId)));
};

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

  it('keeps a library-confirmed skill name (kebab-case or starting like a key) in the span name and attributes', async () => {
    const names = ['risk-assessment-checklist-for-production', 'sk-learn-model-selection-helpers'];
    const spans = names.map((name, i) => ({
      resource: { 'service.name': 'claude-code' } as never,
      span: activationSpan({
        traceId: '0af7651916cd43dd8448eb211c80319c', spanId: `b7ad6b716920333${i}`, start: '1000', end: '2000', failed: false,
        attributes: {
          'agent.skill.name': name, 'agent.skill.id': `acme/task-automation-helpers:${name}`, 'agent.skill.package.id': 'acme/task-automation-helpers',
          'agent.skill.activation.id': `act_${i}`, 'agent.skill.evidence.source': 'native_otel', 'agent.skill.evidence.fidelity': 'exact',
        },
      }),
    }));
    await withPipeline((pipeline, queued) => {
      pipeline.submit({ events: [], spans, metrics: [] });
      pipeline.flush();
      const [body] = queued();
      assert.ok(!body.includes(MASK), body);
      for (const name of names) {
        assert.ok(body.includes(`"name":"activate_skill ${name}"`), body);
        assert.ok(body.includes(`{"key":"agent.skill.id","value":{"stringValue":"acme/task-automation-helpers:${name}"}}`), body);
      }
    });
  });

  it('splits whatever arrives at once into requests of at most batch.maxRecords, in order, each record once', async () => {
    await withPipeline((pipeline, _queued, items, store) => {
      // one submit far over the batch size (an outbox catch-up), then a small one (journaled, not yet flushed)
      const events = Array.from({ length: 250 }, (_, i) => event(i, i === 130 ? 'agent.skill.feedback' : undefined));
      const spans = Array.from({ length: 120 }, (_, i) => ({ resource: { 'service.name': 'claude-code' } as never, span: span(i) }));
      pipeline.submit({ events: events.slice(0, 240), spans, metrics: [] });
      pipeline.submit({ events: events.slice(240), spans: [], metrics: [] });
      pipeline.flush();
      const got = items();
      assert.equal(store.journalRecords(), 0, 'the journal is empty');
      const logs = got.filter((i) => i.signal === 'logs');
      const traces = got.filter((i) => i.signal === 'traces');
      assert.deepEqual(logs.map((i) => i.records), [100, 100, 40, 10]);
      assert.deepEqual(traces.map((i) => i.records), [100, 20]);
      for (const i of got) assert.equal(idsOf(i.body).length, i.records, 'records counts what the request holds');
      assert.deepEqual(logs.flatMap((i) => idsOf(i.body)), events.map((_, n) => `e${n}`));
      assert.deepEqual(traces.flatMap((i) => idsOf(i.body)), spans.map((s) => s.span.spanId));
      // only the request holding the always-retain event is dropped last when the queue is full
      assert.deepEqual(logs.map((i) => i.retain === true), [false, true, false, false]);
      assert.deepEqual(pipeline.queued, { logs: 250, traces: 120, metrics: 0 });
    });
  });
});
