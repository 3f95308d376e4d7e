import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from 'lmdb';
import { NORMALIZER_VERSION } from '../../../normalize/version.js';
import { TelemetryService } from '../../../telemetry/service.js';
import { deliverGoldenFixtures, GOLDEN_RECEIPT_MS, projectionSnapshot } from '../../../test-support/otlp-fixtures.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../../../test-support/telemetry-fixture.js';
import { openEmbeddedStorage } from '../lmdb-store.js';

/**
 * Projection key layouts (layout.ts): a hub whose live generation was written before layouts
 * existed keeps reading and writing it in the old layout (account-id keys, msgpack event rows),
 * with the same projections a new hub builds in the current layout (4), and its next rebuild moves
 * it to the current layout. So does a hub whose live generation is layout 2 (events deduplicated
 * per account, keyed by the bare event id) or layout 3 (Git AI checkpoint records indexed among
 * the outcomes naming the checkpoint).
 */

const now = () => GOLDEN_RECEIPT_MS;


/** What the hub's LMDB holds per generation, read with a plain handle while the hub is closed. */
async function storedRows(dataDir: string): Promise<{ legacy: Map<number, number>; v2: Map<number, number>; layouts: Record<string, unknown>; legacyKey?: unknown[]; v2Key?: unknown[]; checkpointRecordKeys: number }> {
  const root = open({ path: join(dataDir, 'hub.lmdb'), compression: false, maxDbs: 64 });
  try {
    const count = (name: string) => {
      const byGen = new Map<number, number>();
      for (const key of root.openDB({ name, encoding: 'binary' }).getKeys()) byGen.set((key as number[])[0], (byGen.get((key as number[])[0]) ?? 0) + 1);
      return byGen;
    };
    const meta = root.openDB<unknown, string>({ name: 'tm-meta' });
    const layouts: Record<string, unknown> = {};
    for (const { key, value } of meta.getRange({ start: 'layout:', end: 'layout:\uffff' })) layouts[key] = value;
    const [legacyKey] = root.openDB({ name: 'tm-events', encoding: 'binary' }).getKeys({ limit: 1 });
    const [v2Key] = root.openDB({ name: 'tm-events-v2', encoding: 'binary' }).getKeys({ limit: 1 });
    const checkpointRecordKeys = [...root.openDB({ name: 'tm-act-items', encoding: 'binary' }).getKeys()].filter((k) => String((k as unknown[])[2]).startsWith('~git.ai.checkpoint.record ')).length;
    return { legacy: count('tm-events'), v2: count('tm-events-v2'), layouts, legacyKey: legacyKey as unknown[] | undefined, v2Key: v2Key as unknown[] | undefined, checkpointRecordKeys };
  } finally {
    await root.close();
  }
}

/** Writes what a hub from before layouts left in tm-meta: a live generation 1 and no layout record (or, with `layout`, that record). */
async function preLayoutHub(dataDir: string, layout?: number): Promise<void> {
  const root = open({ path: join(dataDir, 'hub.lmdb'), compression: false, maxDbs: 64 });
  const meta = root.openDB<unknown, string>({ name: 'tm-meta' });
  await root.transaction(() => {
    meta.putSync('lastGeneration', 1);
    meta.putSync('activeGeneration', { generation: 1, normalizerVersion: NORMALIZER_VERSION, builtAt: '2026-08-01T00:00:00.000Z' });
    if (layout !== undefined) meta.putSync('layout:1', layout);
  });
  await root.close();
}

describe('hub projection layouts', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it('a new hub writes layout 4: account numbers in keys, compact event rows, events keyed per device, checkpoint records apart', async () => {
    const f = await telemetryFixture({ now });
    const user = f.user('fresh');
    await deliverGoldenFixtures(f, user);
    const events = [...f.telemetry.reader().allEvents()].length;
    await f.telemetry.stop();
    await f.storage.close();
    cleanups.push(() => rm(f.dataDir, { recursive: true, force: true }));
    const stored = await storedRows(f.dataDir);
    assert.deepStrictEqual(stored.layouts, { 'layout:1': 4 });
    assert.equal(stored.v2.get(1), events);
    assert.equal(stored.legacy.size, 0);
    assert.match(String(stored.v2Key?.[2]), / dev_/, 'the event key names the device');
    assert.ok(stored.checkpointRecordKeys > 0, 'Git AI checkpoint records have their own index key');
  });

  it('the normalizer thread writes a pre-layout generation in its own layout too', async () => {
    const fresh = await telemetryFixture({ now });
    cleanups.push(() => fresh.cleanup());
    const freshUser = fresh.user('threaded-layouts');
    const expected = projectionSnapshot(fresh, freshUser, await deliverGoldenFixtures(fresh, freshUser));
    const old = await telemetryFixture({ now }, { beforeOpen: preLayoutHub, normalizerThread: true });
    const user = old.user('threaded-layouts');
    const repos = await deliverGoldenFixtures(old, user);
    assert.deepStrictEqual(projectionSnapshot(old, user, repos), expected);
    await old.telemetry.stop();
    await old.storage.close();
    cleanups.push(() => rm(old.dataDir, { recursive: true, force: true }));
    const stored = await storedRows(old.dataDir);
    assert.equal(stored.legacy.get(1), expected.observation_events.length);
    assert.equal(stored.v2.size, 0);
  });

  it('an existing hub keeps its pre-layout generation readable and writable, and a rebuild moves it to layout 4', async () => {
    const fresh = await telemetryFixture({ now });
    cleanups.push(() => fresh.cleanup());
    const freshUser = fresh.user('layouts');
    const freshRepos = await deliverGoldenFixtures(fresh, freshUser);
    const expected = projectionSnapshot(fresh, freshUser, freshRepos);

    const old = await telemetryFixture({ now }, { beforeOpen: preLayoutHub });
    const user = old.user('layouts');
    const repos = await deliverGoldenFixtures(old, user);
    assert.equal(old.telemetry.generation(), 1);
    assert.deepStrictEqual(projectionSnapshot(old, user, repos), expected, 'the old layout holds the same projections');
    await old.telemetry.stop();
    await old.storage.close();
    cleanups.push(() => rm(old.dataDir, { recursive: true, force: true }));

    const before = await storedRows(old.dataDir);
    assert.deepStrictEqual(before.layouts, {}, 'generation 1 stays without a layout record');
    assert.equal(before.v2.size, 0);
    assert.equal(before.legacy.get(1), expected.observation_events.length);
    assert.equal(before.legacyKey?.[1], user.id, 'layout-1 keys carry the account id');

    // reopened (a restart), still layout 1; then a rebuild writes generation 2 in layout 4
    const storage = openEmbeddedStorage(old.dataDir);
    const telemetry = new TelemetryService(storage, { now, autoNormalize: false });
    try {
      await telemetry.start();
      const reopened = { ...old, storage, telemetry } as TelemetryFixture;
      assert.deepStrictEqual(projectionSnapshot(reopened, user, repos), expected);
      await telemetry.rebuild();
      assert.equal(telemetry.generation(), 2);
      assert.deepStrictEqual(projectionSnapshot(reopened, user, repos), expected, 'layout 4 after the rebuild holds the same projections');
    } finally {
      await telemetry.stop();
      await storage.close();
    }
    const after = await storedRows(old.dataDir);
    assert.deepStrictEqual(after.layouts, { 'layout:2': 4 });
    assert.equal(after.legacy.size, 0, 'the old generation is dropped');
    assert.equal(after.v2.get(2), expected.observation_events.length);
  });

  for (const [layout, what] of [[2, 'events keyed per account'], [3, 'checkpoint records among the outcomes']] as const) {
    it(`an existing hub keeps its layout-${layout} generation (${what}) readable and writable, and a rebuild moves it to layout 4`, async () => {
      const fresh = await telemetryFixture({ now });
      cleanups.push(() => fresh.cleanup());
      const freshUser = fresh.user('layout-old');
      const expected = projectionSnapshot(fresh, freshUser, await deliverGoldenFixtures(fresh, freshUser));

      const old = await telemetryFixture({ now }, { beforeOpen: (dir) => preLayoutHub(dir, layout) });
      const user = old.user('layout-old');
      const repos = await deliverGoldenFixtures(old, user);
      assert.deepStrictEqual(projectionSnapshot(old, user, repos), expected, `layout ${layout} holds the same projections`);
      await old.telemetry.rebuild();
      assert.deepStrictEqual(projectionSnapshot(old, user, repos), expected, 'and so does layout 4 after the rebuild');
      await old.telemetry.stop();
      await old.storage.close();
      cleanups.push(() => rm(old.dataDir, { recursive: true, force: true }));
      const stored = await storedRows(old.dataDir);
      assert.deepStrictEqual(stored.layouts, { 'layout:1': layout, 'layout:2': 4 });
      assert.equal(stored.v2.get(1), undefined, `the layout-${layout} generation is dropped`);
      assert.equal(stored.v2.get(2), expected.observation_events.length);
    });
  }
});
