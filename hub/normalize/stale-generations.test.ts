import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { HubStorage } from '../storage/ports.js';
import { TelemetryService } from '../telemetry/service.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import { normalizeBatch } from './normalize-batch.js';
import { batchContext } from './worker.js';

/** Every row a generation holds, by projection. */
function rowCounts(storage: HubStorage, generation: number) {
  const r = storage.telemetry.projections.reader(generation);
  return { events: [...r.allEvents()].length, activations: [...r.allActivations()].length, rollups: [...r.allRollups()].length };
}

/**
 * What a rebuild interrupted by a crash or a restart has written: the first batches replayed into
 * the next generation, which never went live.
 */
async function interruptedRebuild(f: TelemetryFixture): Promise<number> {
  const telemetry = f.storage.telemetry;
  const generation = telemetry.projections.lastGeneration() + 1;
  for (const record of telemetry.rawBatches.listByReceipt()) {
    const request = (await f.telemetry.loadRaw(record))!;
    await telemetry.projections.write(generation, (w) => normalizeBatch(w, request, batchContext(telemetry, record, '9.0.0-interrupted')));
  }
  return generation;
}

/**
 * A rebuild writes a whole new generation next to the live one and drops the old one once it
 * switched. One interrupted by a crash or a restart (a long rebuild, such as the one a normalizer
 * upgrade starts, is the likeliest to be) left its half-built generation on disk for good, one
 * more per interruption.
 */
describe('hub projection generations an interrupted rebuild left (hub/normalize/rebuild, hub/telemetry/service)', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  async function withActivations(): Promise<TelemetryFixture> {
    const fx = await telemetryFixture();
    const user = fx.user('leftover');
    for (const act of ['act_1', 'act_2']) {
      const body = await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a', 'agent.skill.event.id': `evt_${act}` }, Date.now() - 60_000)]), 'protobuf');
      assert.equal((await fx.post('logs', body, { auth: user.device })).status, 200);
    }
    await fx.telemetry.drain();
    return fx;
  }

  it('a hub start drops them', async () => {
    f = await withActivations();
    const live = f.telemetry.generation();
    const leftover = await interruptedRebuild(f);
    assert.deepEqual(rowCounts(f.storage, leftover), { events: 2, activations: 2, rollups: 1 });
    await f.telemetry.stop();

    // the next run of the hub over the same storage
    const telemetry = new TelemetryService(f.storage, { autoNormalize: false });
    try {
      await telemetry.start();
      await telemetry.drain();
      assert.equal(telemetry.generation(), live);
      assert.deepEqual(rowCounts(f.storage, leftover), { events: 0, activations: 0, rollups: 0 });
      assert.deepEqual(rowCounts(f.storage, live), { events: 2, activations: 2, rollups: 1 });
    } finally {
      await telemetry.stop();
    }
  });

  it('a rebuild drops them before it builds, and leaves only its own generation', async () => {
    f = await withActivations();
    const live = f.telemetry.generation();
    const leftovers = [await interruptedRebuild(f), await interruptedRebuild(f)];
    const rebuilt = await f.telemetry.rebuild();
    assert.equal(rebuilt.generation.generation, leftovers[1] + 1);
    for (const g of [live, ...leftovers]) assert.deepEqual(rowCounts(f.storage, g), { events: 0, activations: 0, rollups: 0 }, `generation ${g}`);
    assert.deepEqual(rowCounts(f.storage, rebuilt.generation.generation), { events: 2, activations: 2, rollups: 1 });
  });
});
