import assert from 'node:assert/strict';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { ObserverStore } from './store.js';

describe('observer LMDB store', () => {
  it('drops batches holding an always-retain event last when the queue is full', async () => {
    const tmp = await tempDir();
    try {
      const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
      store.enqueue('a', { signal: 'logs', body: '{"selection":1}', records: 10, retain: true }, 30);
      for (let i = 0; i < 4; i++) store.enqueue('a', { signal: 'logs', body: `{"i":${i}}`, records: 10 }, 30);
      const bodies: string[] = [];
      for (let h = store.head('a'); h; h = store.head('a')) {
        bodies.push(h.item.body);
        store.ack('a', h.key);
      }
      assert.deepEqual(bodies, ['{"selection":1}', '{"i":2}', '{"i":3}'], 'the oldest plain batches went, not the selection');
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it('bounds each queue by records, dropping the oldest and counting them; counters survive a reopen', async () => {
    const tmp = await tempDir();
    const path = join(tmp.path, 'q.lmdb');
    try {
      let store = await ObserverStore.open(path);
      for (let i = 0; i < 5; i++) store.enqueue('a', { signal: 'logs', body: `{"i":${i}}`, records: 10 }, 30);
      assert.deepEqual(store.size('a'), { items: 3, records: 30 });
      assert.equal(store.head('a')!.item.body, '{"i":2}');
      assert.deepEqual(store.stats('a').droppedBy, { queue_full: 20 });
      const head = store.head('a')!;
      store.retry('a', head.key, Date.now() + 1000, 'HTTP 503');
      store.ack('a', head.key, { rejected: 2 });
      assert.deepEqual({ ...store.stats('a'), lastSuccessAt: 0, lastErrorAt: 0 }, { delivered: 8, retried: 10, dropped: 22, droppedBy: { queue_full: 20, rejected: 2 }, lastError: 'partial success: 2 record(s) rejected', lastErrorAt: 0, lastSuccessAt: 0 });
      store.enqueue('b', { signal: 'traces', body: '{}', records: 1 }, 10);
      store.purge('b');
      assert.deepEqual(store.stats('b').droppedBy, { destination_removed: 1 });
      await store.close();
      store = await ObserverStore.open(path);
      assert.deepEqual(store.size('a'), { items: 2, records: 20 });
      assert.equal(store.stats('a').delivered, 8);
      assert.deepEqual(store.knownDestinations().sort(), ['a', 'b']);
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it('counts a partial success by the records sent: rejected is clamped, and its message is the last error', async () => {
    const tmp = await tempDir();
    try {
      const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
      store.enqueue('d', { signal: 'logs', body: '{}', records: 3 }, 100);
      const sent = store.head('d')!;
      store.markSending('d', sent.key);
      store.ack('d', sent.key, { rejected: 1000, errorMessage: 'quota exceeded' });
      const s = store.stats('d');
      assert.deepEqual({ delivered: s.delivered, dropped: s.dropped, droppedBy: s.droppedBy, lastError: s.lastError }, { delivered: 0, dropped: 3, droppedBy: { rejected: 3 }, lastError: 'partial success: quota exceeded' });
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it('a partial success that rejected nothing is a warning: it clears the last error and is kept as the last warning', async () => {
    const tmp = await tempDir();
    try {
      const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
      store.enqueue('d', { signal: 'logs', body: '{}', records: 3 }, 100);
      store.enqueue('d', { signal: 'logs', body: '{}', records: 2 }, 100);
      const first = store.head('d')!;
      store.markSending('d', first.key);
      store.retry('d', first.key, 0, 'HTTP 503');
      store.markSending('d', first.key);
      store.ack('d', first.key, { rejected: 0, errorMessage: '2 enum values kept although the registry does not define them' });
      const s = store.stats('d');
      assert.deepEqual(
        { delivered: s.delivered, dropped: s.dropped, lastError: s.lastError, lastWarning: s.lastWarning },
        { delivered: 3, dropped: 0, lastError: undefined, lastWarning: 'partial success: 2 enum values kept although the registry does not define them' },
      );
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it('never drops the item being sent to make room: its delivery counts as delivered', async () => {
    const tmp = await tempDir();
    try {
      const store = await ObserverStore.open(join(tmp.path, 'q.lmdb'));
      store.enqueue('d', { signal: 'logs', body: '{"a":1}', records: 5 }, 10);
      const inFlight = store.head('d')!;
      store.markSending('d', inFlight.key); // what the delivery worker does before it sends
      store.enqueue('d', { signal: 'logs', body: '{"a":2}', records: 5 }, 10);
      store.enqueue('d', { signal: 'logs', body: '{"a":3}', records: 5 }, 10);
      store.ack('d', inFlight.key);
      const s = store.stats('d');
      assert.deepEqual({ delivered: s.delivered, dropped: s.dropped }, { delivered: 5, dropped: 5 }, 'the in-flight batch was delivered; the next oldest made room');
      assert.deepEqual(store.size('d'), { items: 1, records: 5 });
      assert.equal(store.head('d')!.item.body, '{"a":3}');
      await store.close();
    } finally {
      await tmp.cleanup();
    }
  });

  describe('file modes: the queue holds telemetry metadata that other users must not read', () => {
    const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

    it('creates the database and lock files 0600 in a directory made 0700, even under a 0022 umask', async () => {
      const tmp = await tempDir();
      const previous = process.umask(0o022);
      try {
        // the OpenCode plugin's spool may create queue/ first, with the umask
        await mkdir(join(tmp.path, 'queue'), { mode: 0o755 });
        const path = join(tmp.path, 'queue', 'q.lmdb');
        const store = await ObserverStore.open(path);
        store.enqueue('a', { signal: 'logs', body: '{"i":1}', records: 1 }, 10);
        await store.close();
        assert.deepEqual(
          { dir: await modeOf(join(tmp.path, 'queue')), db: await modeOf(path), lock: await modeOf(`${path}-lock`) },
          { dir: 0o700, db: 0o600, lock: 0o600 },
        );
      } finally {
        process.umask(previous);
        await tmp.cleanup();
      }
    });

    it('tightens a queue an older version left 0644, keeping what it holds', async () => {
      const tmp = await tempDir();
      const path = join(tmp.path, 'q.lmdb');
      try {
        let store = await ObserverStore.open(path);
        store.enqueue('a', { signal: 'logs', body: '{"kept":1}', records: 1 }, 10);
        await store.close();
        await chmod(path, 0o644);
        await chmod(`${path}-lock`, 0o644);
        await chmod(tmp.path, 0o755);
        store = await ObserverStore.open(path);
        assert.equal(store.head('a')!.item.body, '{"kept":1}');
        await store.close();
        assert.deepEqual(
          { dir: await modeOf(tmp.path), db: await modeOf(path), lock: await modeOf(`${path}-lock`) },
          { dir: 0o700, db: 0o600, lock: 0o600 },
        );
      } finally {
        await tmp.cleanup();
      }
    });
  });
});
