import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import type { ProjectionReader } from '../storage/telemetry-ports.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture } from '../test-support/telemetry-fixture.js';
import { TelemetryService } from './service.js';

const withoutVersion = (s: unknown) => JSON.parse(JSON.stringify(s, (k, v) => (k === 'normalizerVersion' ? undefined : v)));
const snapshot = (r: ProjectionReader) => withoutVersion({ events: [...r.allEvents()], activations: [...r.allActivations()], rollups: [...r.allRollups()] });

/**
 * A hub started over a data directory whose live generation another normalizer version built
 * replays the raw batches into one new generation (docs/hub-telemetry.md "Rebuilds"). start()
 * used to call rebuild(), which called start() again before start() had recorded that it ran:
 * they recursed until the stack overflowed, and each level queued one more full rebuild.
 */
describe('hub telemetry: a restart with a newer normalizer version (hub/telemetry/service)', () => {
  let dataDir: string | undefined;
  afterEach(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });

  it('rebuilds exactly once, into one new generation with the same projections', async function () {
    this.timeout(20_000);
    const f = await telemetryFixture({ normalizerVersion: '1.0.0-before' });
    dataDir = f.dataDir;
    const user = f.user('restarted');
    for (const act of ['act_r1', 'act_r2']) {
      const body = await encodeOtlpRequest(
        logsRequest([
          skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': 'owner/cq' }),
          skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': act, 'agent.skill.id': 'owner/cq' }),
          skillRecord('agent.change.summary', { 'agent.skill.activation.ids': [act], 'agent.change.boundary': 'turn', 'agent.change.line.added.count': 3 }),
        ]),
        'protobuf',
      );
      assert.equal((await f.post('logs', body, { auth: user.device })).status, 200);
    }
    await f.telemetry.drain();
    const generation = f.telemetry.generation();
    const before = snapshot(f.telemetry.reader());
    assert.ok(before.events.length >= 6);
    await f.telemetry.stop();
    await f.storage.close();

    const storage = openEmbeddedStorage(f.dataDir);
    const telemetry = new TelemetryService(storage, { normalizerVersion: '1.0.0-after', autoNormalize: false });
    try {
      await telemetry.start();
      await telemetry.drain();
      assert.equal(storage.telemetry.projections.lastGeneration(), generation + 1, 'one new generation, not one per recursion level');
      assert.deepEqual(storage.telemetry.projections.active()?.generation, generation + 1);
      assert.equal(storage.telemetry.projections.active()?.normalizerVersion, '1.0.0-after');
      assert.deepStrictEqual(snapshot(telemetry.reader()), before);
      assert.ok([...telemetry.reader().allEvents()].every((e) => e.normalizerVersion === '1.0.0-after'));
      // nothing else is queued behind it: a manual rebuild is the next generation
      assert.equal((await telemetry.rebuild()).generation.generation, generation + 2);
    } finally {
      await telemetry.stop();
      await storage.close();
    }
  });
});
