import assert from 'node:assert/strict';
import { join } from 'node:path';
import { open } from 'lmdb';
import { latestVersion } from '../../../core/skit/semver.js';
import { hubFixture, type HubFixture } from '../../test-support/hub-fixture.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../../test-support/skit-archive.js';
import type { RegistryStore } from '../ports.js';
import { openEmbeddedStorage } from './lmdb-store.js';

/** Release count, latest installable version and owner bytes computed from every release: what the kept figures must equal. */
function slowFigures(registry: RegistryStore, skitIds: string[], owners: string[]) {
  const skits = skitIds.map((id) => {
    const releases = registry.listReleases(id);
    const installable = releases.filter((r) => !r.quarantined).map((r) => r.version);
    return { id, releases: releases.length, latest: latestVersion(installable) };
  });
  const bytes = owners.map((o) => [o, skitIds.filter((id) => id.startsWith(`${o}/`)).flatMap((id) => registry.listReleases(id)).reduce((n, r) => n + r.storedBytes, 0)]);
  return { skits, bytes };
}

function keptFigures(registry: RegistryStore, skitIds: string[], owners: string[]) {
  return {
    skits: skitIds.map((id) => ({ id, releases: registry.releaseCount(id), latest: registry.latestSummary(id)?.version })),
    bytes: owners.map((o) => [o, registry.ownerStorageBytes(o)]),
  };
}

describe('embedded registry store: per-SKIT and per-owner figures', () => {
  const kits: PackedSkit[] = [];
  const hubs: HubFixture[] = [];
  const fixture = async (limits = {}) => {
    const hub = await hubFixture({ limits });
    hubs.push(hub);
    return hub;
  };
  const archive = async (id: string) => {
    const k = await packSkit(twoSkillTree(id));
    kits.push(k);
    return k.archive;
  };
  afterEach(async () => {
    for (const k of kits.splice(0)) await k.cleanup();
    for (const h of hubs.splice(0)) await h.cleanup();
  });

  it('a data directory from before the figures gets them computed once when opened', async () => {
    const hub = await fixture();
    const alice = hub.user('alice');
    const bob = hub.user('bob');
    for (const [auth, id, v] of [[alice.auth, 'alice/kit', '1.0.0'], [alice.auth, 'alice/kit', '1.1.0'], [alice.auth, 'alice/kit-2', '2.0.0-rc.1'], [bob.auth, 'bob/x', '1.0.0']] as const) {
      assert.equal((await hub.publish(auth, id, v, await archive(id))).status, 201);
    }
    hub.storage.registry.updateReleaseFlags('alice/kit', '1.1.0', { quarantined: { reason: 'bad', at: 'now' } });
    const ids = ['alice/kit', 'alice/kit-2', 'bob/x', 'bob/none'];
    const owners = ['alice', 'bob', 'carol'];
    const expected = slowFigures(hub.storage.registry, ids, owners);
    assert.deepEqual(expected.skits.map((s) => s.latest), ['1.0.0', '2.0.0-rc.1', '1.0.0', undefined]);
    await hub.storage.close();

    // what an older hub left: its databases, none of the kept figures
    const raw = open({ path: join(hub.dataDir, 'hub.lmdb'), compression: false, maxDbs: 64 });
    for (const name of ['skit-state', 'owner-bytes', 'registry-meta']) raw.openDB({ name }).dropSync();
    await raw.close();

    const reopened = openEmbeddedStorage(hub.dataDir);
    try {
      assert.deepEqual(keptFigures(reopened.registry, ids, owners), expected);
      assert.equal(reopened.registry.latestRelease('alice/kit')?.version, '1.0.0');
    } finally {
      await reopened.close();
    }
    // a second open keeps the figures (it does not derive them again): a tampered one stays
    const tamper = open({ path: join(hub.dataDir, 'hub.lmdb'), compression: false, maxDbs: 64 });
    await tamper.openDB<number, string>({ name: 'owner-bytes' }).put('alice', 7);
    await tamper.close();
    const again = openEmbeddedStorage(hub.dataDir);
    try {
      assert.equal(again.registry.ownerStorageBytes('alice'), 7);
    } finally {
      await again.close();
    }
  });

  it('a data directory from before the blob references gets them from its releases when opened, so no sweep takes a release blob for an orphan', async () => {
    const hub = await fixture();
    assert.equal((await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', await archive('alice/kit'))).status, 201);
    const release = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    const blobs = [release.archiveSha256, ...release.files.map((f) => f.sha256), ...release.skills.map((k) => k.archiveSha256)];
    assert.ok(blobs.every((sha) => hub.storage.registry.blobReferenced(sha)));
    assert.equal(hub.storage.registry.blobReferenced('0'.repeat(64)), false);
    await hub.storage.close();
    // what an older hub left: the releases, no blob references, its own marker
    const raw = open({ path: join(hub.dataDir, 'hub.lmdb'), compression: false, maxDbs: 64 });
    raw.openDB({ name: 'blob-refs' }).dropSync();
    const meta = raw.openDB<number, string>({ name: 'registry-meta' });
    await meta.remove('derived-v2');
    await meta.put('derived-v1', 1);
    await raw.close();
    const reopened = openEmbeddedStorage(hub.dataDir);
    try {
      assert.deepEqual(blobs.filter((sha) => !reopened.registry.blobReferenced(sha)), []);
    } finally {
      await reopened.close();
    }
  });

  it('computes the figures again after a hub of an earlier version published into the directory (it keeps none)', async () => {
    const hub = await fixture();
    const alice = hub.user('alice');
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', await archive('alice/kit'))).status, 201);
    const first = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    await hub.storage.close();
    // what an older hub's publish of 2.0.0 writes: the release record, and none of the figures
    const raw = open({ path: join(hub.dataDir, 'hub.lmdb'), compression: false, maxDbs: 64 });
    await raw.openDB({ name: 'releases' }).put('alice/kit@2.0.0', { ...first, version: '2.0.0' });
    await raw.close();

    const reopened = openEmbeddedStorage(hub.dataDir);
    try {
      assert.equal(reopened.registry.latestRelease('alice/kit')?.version, '2.0.0');
      assert.deepEqual(keptFigures(reopened.registry, ['alice/kit'], ['alice']), slowFigures(reopened.registry, ['alice/kit'], ['alice']));
    } finally {
      await reopened.close();
    }
  });

  it('concurrent publishes keep the counts and the owner bytes exact, and pass the storage quota only as far as it goes', async () => {
    const probe = await fixture();
    const kit = await archive('alice/kit');
    assert.equal((await probe.publish(probe.user('alice').auth, 'alice/kit', '1.0.0', kit)).status, 201);
    const size = probe.storage.registry.getRelease('alice/kit', '1.0.0')!.storedBytes;

    const hub = await fixture({ maxOwnerStorageBytes: Math.floor(size * 3.5) });
    const alice = hub.user('alice');
    const versions = ['1.0.1', '1.0.2', '1.0.3', '1.0.4', '1.0.5', '1.0.6'];
    const answers = await Promise.all(versions.map((v) => hub.publish(alice.auth, 'alice/kit', v, kit)));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 201, 413, 413, 413]);
    const ids = ['alice/kit'];
    assert.deepEqual(keptFigures(hub.storage.registry, ids, ['alice']), slowFigures(hub.storage.registry, ids, ['alice']));
    assert.equal(hub.storage.registry.ownerStorageBytes('alice'), 3 * size);
  });
});
