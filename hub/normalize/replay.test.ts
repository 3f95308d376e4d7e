import assert from 'node:assert/strict';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import { TelemetryService } from '../telemetry/service.js';
import { deliver, GOLDEN_FIXTURES, GOLDEN_RECEIPT_MS, loadOtlpFixture, projectionSnapshot, setUpAccount } from '../test-support/otlp-fixtures.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import { normalizeBatch } from './normalize-batch.js';
import { batchContext } from './worker.js';

/** Every golden fixture delivered to one account (fixture repositories are linked once). */
async function deliverAll(f: TelemetryFixture, user: TelemetryUser, setUp = true): Promise<Map<string, string>> {
  const repos = new Map<string, string>();
  for (const name of GOLDEN_FIXTURES) {
    const fx = await loadOtlpFixture(name);
    if (setUp && repos.size === 0) for (const [id, n] of await setUpAccount(f, user, fx)) repos.set(id, n);
    for (const r of await deliver(f, user, fx)) assert.equal(r.status, 200);
  }
  return repos;
}

const withoutVersion = (s: unknown) => JSON.parse(JSON.stringify(s, (k, v) => (k === 'normalizerVersion' ? undefined : v)));

describe('hub normalizer: idempotent and replayable', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it('applying a raw batch any number of times changes nothing after the first', async () => {
    f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    const user = f.user('replay');
    const repos = await deliverAll(f, user);
    await f.telemetry.drain();
    const once = projectionSnapshot(f, user, repos);
    const gen = f.telemetry.generation();
    for (const record of f.storage.telemetry.rawBatches.listByReceipt()) {
      const request = (await f.telemetry.loadRaw(record))!;
      for (let i = 0; i < 3; i++) {
        const stats = await f.storage.telemetry.projections.write(gen, (w) => normalizeBatch(w, request, batchContext(f.storage.telemetry, record, '1.0.0')));
        assert.equal(stats.events, 0, `${record.id} replay ${i} applied new events`);
      }
    }
    assert.deepStrictEqual(projectionSnapshot(f, user, repos), once);
    // and through the front door: every fixture delivered again
    await deliverAll(f, user, false);
    await f.telemetry.drain();
    assert.deepStrictEqual(projectionSnapshot(f, user, repos), once);
  });

  it('replaying every raw batch into a new normalizer version rebuilds the same projections', async () => {
    f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    const user = f.user('rebuild');
    const repos = await deliverAll(f, user);
    await f.telemetry.drain();
    const before = projectionSnapshot(f, user, repos);
    const oldGeneration = f.telemetry.generation();
    const result = await f.telemetry.rebuild('1.1.0-rebuild-test');
    assert.equal(result.missing, 0);
    assert.equal(result.duplicates, 2, 'only the re-chunked retry of duplicate-delivery repeats events across batches');
    assert.equal(result.generation.generation, oldGeneration + 1);
    assert.equal(f.telemetry.generation(), oldGeneration + 1);
    const after = projectionSnapshot(f, user, repos);
    assert.deepStrictEqual(withoutVersion(after), withoutVersion(before));
    assert.ok(after.skill_activations.every((r) => (r as { normalizerVersion: string }).normalizerVersion === '1.1.0-rebuild-test'));
    assert.equal([...f.storage.telemetry.projections.reader(oldGeneration).allEvents()].length, 0, 'the old generation is dropped');
    // new deliveries after the switch land in the new generation
    await deliver(f, user, await loadOtlpFixture('normal-activation'));
    await f.telemetry.drain();
    assert.deepStrictEqual(withoutVersion(projectionSnapshot(f, user, repos)), withoutVersion(before));
  });

  it('a queue left by a stopped hub is normalized after restart, from the raw batches', async () => {
    f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    const user = f.user('restart');
    const fx = await loadOtlpFixture('jfdi-unsafe-autonomy');
    const repos = await setUpAccount(f, user, fx);
    await deliver(f, user, fx);
    assert.equal(f.telemetry.queued(), 3);
    await f.telemetry.stop();
    await f.storage.close();
    const storage = openEmbeddedStorage(f.dataDir);
    const telemetry = new TelemetryService(storage, { now: () => GOLDEN_RECEIPT_MS });
    await telemetry.start();
    await telemetry.drain();
    assert.equal(storage.telemetry.queue.depth(), 0);
    const expected = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    try {
      const u2 = expected.user('restart');
      const r2 = await setUpAccount(expected, u2, fx);
      await deliver(expected, u2, fx);
      await expected.telemetry.drain();
      const restarted = projectionSnapshot({ ...f, storage, telemetry } as TelemetryFixture, user, repos);
      assert.deepStrictEqual(restarted, projectionSnapshot(expected, u2, r2));
    } finally {
      await expected.cleanup();
      await telemetry.stop();
      await storage.close();
      // f's own storage is already closed: only its directory remains to remove
      const dir = f.dataDir;
      f = { cleanup: async () => (await import('node:fs/promises')).rm(dir, { recursive: true, force: true }) } as unknown as TelemetryFixture;
    }
  });
});
