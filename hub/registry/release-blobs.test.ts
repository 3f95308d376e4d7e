import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { access, mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../test-support/skit-archive.js';
import { TelemetryService } from '../telemetry/service.js';
import { releaseBlobs, REGISTRY_ORPHAN_GRACE_MS } from './release-blobs.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('hub registry: release blobs (refused publishes and the orphan sweep)', () => {
  let hub: HubFixture;
  let kit: PackedSkit;
  beforeEach(async () => {
    hub = await hubFixture();
    kit = await packSkit(twoSkillTree('alice/kit'));
  });
  afterEach(async () => {
    await releaseBlobs(hub.storage).idle();
    await kit.cleanup();
    await hub.cleanup();
  });

  const blobPath = (sha: string) => join(hub.dataDir, 'blobs', sha.slice(0, 2), sha);
  const exists = (path: string) => access(path).then(() => true, () => false);
  /** backdates a file past the grace period, as if a crash had left it an hour and more ago */
  const age = (path: string) => {
    const then = new Date(Date.now() - REGISTRY_ORPHAN_GRACE_MS - 60_000);
    return utimes(path, then, then);
  };

  it('a refused publish removes its blobs, but not one another publish in flight also wrote, nor one a release reads', async () => {
    const blobs = releaseBlobs(hub.storage);
    const bytes = Buffer.from('a file two publishes upload at once');
    const a = blobs.begin();
    const b = blobs.begin();
    const sha = await a.put(bytes);
    assert.equal(await b.put(bytes), sha);
    assert.equal(await b.end(false), 0, 'the other publish still needs it');
    assert.ok(await exists(blobPath(sha)));
    assert.equal(await a.end(false), 1, 'the last refused publish that wrote it removes it');
    assert.ok(!(await exists(blobPath(sha))));

    assert.equal((await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
    const release = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    const c = blobs.begin();
    assert.equal(await c.put(kit.archive), release.archiveSha256);
    assert.equal(await c.end(false), 0);
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz')).status, 200, 'a blob a release reads is never removed');
  });

  it('the sweep removes unreferenced blobs and temp files older than the grace period, and nothing else', async () => {
    assert.equal((await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
    const blobs = releaseBlobs(hub.storage);
    await blobs.idle();
    const release = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    const old = Buffer.from('left by a hub that crashed mid-publish');
    const fresh = Buffer.from('written a moment ago');
    const pinned = Buffer.from('old, but a publish in flight just reused it');
    for (const b of [old, fresh, pinned]) await hub.storage.blobs.put(b);
    const tempSha = sha256(Buffer.from('never finished'));
    await mkdir(join(hub.dataDir, 'blobs', tempSha.slice(0, 2)), { recursive: true });
    const temp = `${blobPath(tempSha)}.tmp-0a1b2c`;
    await writeFile(temp, 'half a blob');
    for (const path of [blobPath(sha256(old)), blobPath(sha256(pinned)), blobPath(release.archiveSha256), temp]) await age(path);
    const inFlight = blobs.begin();
    await inFlight.put(pinned);

    assert.deepEqual(await blobs.sweep(), { orphanBlobs: 1, tempFiles: 1 });
    assert.ok(!(await exists(blobPath(sha256(old)))));
    assert.ok(!(await exists(temp)));
    assert.ok(await exists(blobPath(sha256(fresh))), 'younger than the grace period');
    assert.ok(await exists(blobPath(sha256(pinned))), 'pinned by a publish in flight');
    assert.ok(await exists(blobPath(release.archiveSha256)), 'a release reads it');
    await inFlight.end(false);
    assert.ok(!(await exists(blobPath(sha256(pinned)))), 'the refused publish removed it once it was no longer pinned');
  });

  it('a publish starts the sweep, so the first publish after a crash collects what the crash left', async () => {
    const orphan = Buffer.from('a crash left this');
    await hub.storage.blobs.put(orphan);
    await age(blobPath(sha256(orphan)));
    assert.equal((await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
    await releaseBlobs(hub.storage).idle();
    assert.ok(!(await exists(blobPath(sha256(orphan)))));
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz')).status, 200);
  });

  it("the telemetry service's periodic sweeper also collects registry orphans, with no publish to start it", async () => {
    const orphan = Buffer.from('a crash left this, and nobody publishes');
    await hub.storage.blobs.put(orphan);
    await age(blobPath(sha256(orphan)));
    const service = new TelemetryService(hub.storage, { sweepIntervalMs: 20, autoNormalize: false });
    try {
      const deadline = Date.now() + 5_000;
      while ((await exists(blobPath(sha256(orphan)))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await releaseBlobs(hub.storage).idle();
      assert.ok(!(await exists(blobPath(sha256(orphan)))));
    } finally {
      await service.stop();
    }
  });

  it('the admin sweep also sweeps the registry blobs', async () => {
    const orphan = Buffer.from('an orphan the admin sweep removes');
    await hub.storage.blobs.put(orphan);
    await age(blobPath(sha256(orphan)));
    const root = hub.user('root', ['admin'], { admin: true });
    const res = await hub.app.request('/api/v1/telemetry/admin/sweep', { method: 'POST', headers: root.auth });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).registry, { orphanBlobs: 1, tempFiles: 0 });
    assert.ok(!(await exists(blobPath(sha256(orphan)))));
  });
});
