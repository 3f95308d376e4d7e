import assert from 'node:assert/strict';
import { decodeOtlpRequest, encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { deliver, deliverGoldenFixtures, GOLDEN_RECEIPT_MS, loadOtlpFixture, projectionSnapshot, type ProjectionSnapshot } from '../test-support/otlp-fixtures.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

/**
 * The normalizer in a worker thread (as `sf hub serve` runs it) must produce exactly the rows the
 * in-process normalizer produces, and the hub must keep normalizing when the thread is gone.
 */

/** Every golden fixture delivered to one account of `f`, normalized; the projections as the golden tests see them. */
async function goldenProjections(f: TelemetryFixture, user = f.user('threaded')): Promise<ProjectionSnapshot> {
  const repos = await deliverGoldenFixtures(f, user);
  assert.equal(f.telemetry.queued(), 0);
  assert.equal(f.storage.telemetry.queue.depth(), 0);
  return projectionSnapshot(f, user, repos);
}

describe('hub normalizer in a worker thread', function () {
  this.timeout(30_000);
  const fixtures: TelemetryFixture[] = [];
  const fixture = async (options: Parameters<typeof telemetryFixture>[1] = {}) => {
    const f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS }, options);
    fixtures.push(f);
    return f;
  };
  afterEach(async () => {
    for (const f of fixtures.splice(0)) await f.cleanup();
  });

  it('writes the same projection rows as the in-process normalizer for every golden fixture', async () => {
    const inProcess = await goldenProjections(await fixture());
    const threaded = await goldenProjections(await fixture({ normalizerThread: true }));
    assert.ok(inProcess.observation_events.length > 50, 'the fixtures produce events');
    assert.deepStrictEqual(threaded, inProcess);
  });

  it('folds activation spans, span events and tool spans the same way in the thread', async () => {
    const t0 = Date.UTC(2026, 7, 9, 18, 42, 10);
    const s = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const span = (id: string, name: string, start: number, end: number, attributes: object[], extra: object = {}) => ({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: id, name, kind: 1, startTimeUnixNano: `${start}000000`, endTimeUnixNano: `${end}000000`, attributes, ...extra,
    });
    const traces = { resourceSpans: [{ resource: { attributes: [s('service.name', 'opencode'), s('forge.repository.fingerprint', 'rfp_spans')] }, scopeSpans: [{ scope: { name: 'sf' }, spans: [
      span('00f067aa0ba902b7', 'activate_skill writer', t0, t0 + 80, [s('agent.skill.activation.id', 'act_span'), s('agent.skill.id', 'tools/docs:writer'), s('agent.skill.trigger.type', 'explicit')], {
        events: [{ name: 'agent.skill.loaded', timeUnixNano: `${t0 + 60}000000`, attributes: [s('agent.skill.phase', 'loaded'), { key: 'agent.skill.instructions.file_count', value: { intValue: '2' } }] }],
      }),
      span('00f067aa0ba902b8', 'activate_skill broken', t0, t0 + 30, [s('agent.skill.activation.id', 'act_span_fail'), s('agent.skill.id', 'tools/docs:broken')], { status: { code: 2 } }),
      span('00f067aa0ba902b9', 'execute_tool Bash', t0 + 100, t0 + 900, [s('agent.action.type', 'process.execute'), { key: 'agent.skill.activation.ids', value: { arrayValue: { values: [{ stringValue: 'act_span' }, { stringValue: 'act_span_fail' }] } } }]),
    ] }] }] };
    const snapshots: ProjectionSnapshot[] = [];
    for (const f of [await fixture(), await fixture({ normalizerThread: true })]) {
      const user = f.user('spans');
      const repos = new Map([[await f.linkRepository(user, 'spans', ['rfp_spans']), 'spans']]);
      for (const encoding of ['json', 'protobuf'] as const) {
        const body = encoding === 'json' ? traces : await encodeOtlpRequest(await decodeOtlpRequest('traces', Buffer.from(JSON.stringify(traces)), 'json'), 'protobuf');
        assert.equal((await f.post('traces', body, { auth: user.device, encoding })).status, 200);
      }
      await f.telemetry.drain();
      snapshots.push(projectionSnapshot(f, user, repos));
    }
    const [inProcess, threaded] = snapshots;
    const failed = inProcess.skill_activations.find((r) => (r as { activationId: string }).activationId === 'act_span_fail') as { load: string };
    assert.equal(failed.load, 'failed', 'the span status reached the activation');
    assert.equal(inProcess.observation_events.length, 4, 'three spans and the catalog event on one of them, each once');
    assert.deepStrictEqual(threaded, inProcess);
  });

  it('rebuilds into a new generation while the thread is paused, and the thread then writes into it', async () => {
    const f = await fixture({ normalizerThread: true });
    const user = f.user('threaded');
    const before = await goldenProjections(f, user);
    const result = await f.telemetry.rebuild('1.1.0-thread-test');
    assert.equal(result.missing, 0);
    // a delivery (from the same device: events are deduplicated per device) after the switch is
    // normalized by the thread into the new generation (and deduplicated there)
    await deliver(f, user, await loadOtlpFixture('normal-activation'));
    await f.telemetry.drain();
    const rows = [...f.telemetry.reader().allActivations()];
    assert.ok(rows.length > 0 && rows.every((r) => r.normalizerVersion === '1.1.0-thread-test'));
    assert.equal([...f.telemetry.reader().allEvents()].length, before.observation_events.length);
  });

  it('continues in-process, losing nothing, when the thread cannot start', async () => {
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const expected = await goldenProjections(await fixture());
      const fallen = await goldenProjections(await fixture({ normalizerThread: 'unavailable' }));
      assert.deepStrictEqual(fallen, expected);
    } finally {
      console.error = original;
    }
    assert.ok(errors.some((args) => args.map(String).join(' ').includes('normalizing in this thread from now on')), 'the fallback is logged');
  });

  it('stop() resolves when the thread reports an error while it is being terminated', async () => {
    const f = await fixture({ normalizerThread: true });
    await goldenProjections(f);
    // the service's ThreadedNormalizer and its Worker (private: this is the race being tested)
    const threaded = (f.telemetry as unknown as { worker: { worker?: import('node:worker_threads').Worker; stop(): Promise<void> } }).worker;
    const worker = threaded.worker!;
    const terminate = worker.terminate.bind(worker);
    // an 'error' from the thread right after terminate began: handling it must not drop the
    // listener terminate() resolves on
    worker.terminate = () => {
      const done = terminate();
      worker.emit('error', new Error('the thread failed while stopping'));
      return done;
    };
    const stopped = await Promise.race([threaded.stop().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 5_000).unref())]);
    assert.ok(stopped, 'stop() still pending after 5 s');
  });
});
