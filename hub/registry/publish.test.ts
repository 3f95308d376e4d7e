import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { zip } from '../../fixtures/archives/lib/raw-zip.js';
import { packTree, readArchiveEntries } from '../../core/archive/index.js';
import { digestListing } from '../../core/skit/hash.js';
import { validateSkitDir } from '../../core/skit/validate.js';
import { validationReport } from '../../core/skit/validation-report.js';
import { walkTree } from '../../core/skit/tree.js';
import { fixturesDir } from '../../test-support/index.js';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../test-support/skit-archive.js';

const sha256 = async (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Every blob file under the data dir, to prove a refused upload stored nothing. */
async function blobFiles(dataDir: string): Promise<string[]> {
  const root = join(dataDir, 'blobs');
  const out: string[] = [];
  for (const shard of await readdir(root).catch(() => [] as string[])) {
    for (const f of await readdir(join(root, shard))) out.push(`${shard}/${f}`);
  }
  return out.sort();
}

/** The blob files the releases of `skitId` read, in blobFiles' form. */
function referencedBlobs(hub: HubFixture, skitId: string): string[] {
  const shas = new Set<string>();
  for (const r of hub.storage.registry.listReleases(skitId)) {
    shas.add(r.archiveSha256);
    for (const f of r.files) shas.add(f.sha256);
    for (const k of r.skills) shas.add(k.archiveSha256);
  }
  return [...shas].map((sha) => `${sha.slice(0, 2)}/${sha}`).sort();
}

describe('hub registry: publish', () => {
  let hub: HubFixture;
  let kit: PackedSkit;
  beforeEach(async () => {
    hub = await hubFixture();
    kit = await packSkit(twoSkillTree('alice/kit'));
  });
  afterEach(async () => {
    await kit.cleanup();
    await hub.cleanup();
  });

  it('recomputes the hashes server-side and stores the deterministic archive the client would pack', async () => {
    const alice = hub.user('alice');
    const res = await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive);
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.created, true);
    assert.equal(body.release.bundleHash, kit.hashes!.bundle);
    assert.deepEqual(
      body.release.skills.map((s: { id: string; hash: string }) => [s.id, s.hash]),
      kit.hashes!.skills.map((s) => [s.id, s.hash]),
    );
    const stored = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    assert.equal(stored.files.length, kit.hashes!.files.length);
    const download = await hub.app.request('/r/alice/kit/1.0.0.tgz');
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(kit.archive), 'the stored archive is the deterministic pack of the tree');
  });

  it('stores the same canonical archive whatever container the client uploads (wrapped tar, zip)', async () => {
    const alice = hub.user('alice');
    const { files } = await walkTree(kit.dir);
    // a tar wrapped in a top-level directory, as `git archive --prefix` or GitHub tarballs make
    const wrapped = await packTree(join(kit.dir, '..'), files.map((f) => ({ path: `kit/${f.path}`, mode: f.mode })));
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', wrapped)).status, 201);
    const zipped = zip(await Promise.all(files.map(async (f) => ({ name: f.path, data: await readFile(f.abs) }))));
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.1', zipped)).status, 201);
    const a = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    const b = hub.storage.registry.getRelease('alice/kit', '1.0.1')!;
    assert.equal(a.bundleHash, kit.hashes!.bundle);
    assert.equal(b.bundleHash, kit.hashes!.bundle);
    assert.equal(a.archiveSha256, await sha256(kit.archive));
    assert.equal(b.archiveSha256, a.archiveSha256);
  });

  it('releases are immutable: the same version again is 409 SF_E_IMMUTABLE and nothing changes', async () => {
    const alice = hub.user('alice');
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
    const other = await packSkit(twoSkillTree('alice/kit', { 'skills/review/SKILL.md': '---\nname: review\ndescription: Changed. Use when asked.\n---\n\nChanged.\n' }));
    try {
      const res = await hub.publish(alice.auth, 'alice/kit', '1.0.0', other.archive);
      assert.equal(res.status, 409);
      assert.equal((await res.json()).error.code, 'SF_E_IMMUTABLE');
      assert.equal(hub.storage.registry.getRelease('alice/kit', '1.0.0')!.bundleHash, kit.hashes!.bundle);
    } finally {
      await other.cleanup();
    }
  });

  it('a publish refused inside the transaction (a lost race, the storage quota) leaves none of its blobs; blobs shared with the winner stay', async () => {
    const alice = hub.user('alice');
    // every variant changes one skill and shares every other file (and so their blobs) with the rest
    const variants = await Promise.all(['one', 'two', 'three', 'four', 'five'].map((word) =>
      packSkit(twoSkillTree('alice/kit', { 'skills/review/SKILL.md': `---\nname: review\ndescription: Reviews ${word}. Use when asked.\n---\n\n${word}\n` }))));
    try {
      const answers = await Promise.all(variants.map((v) => hub.publish(alice.auth, 'alice/kit', '1.0.0', v.archive)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
      assert.deepEqual(await blobFiles(hub.dataDir), referencedBlobs(hub, 'alice/kit'), 'exactly the winner\'s blobs are stored');
      for (const f of hub.storage.registry.getRelease('alice/kit', '1.0.0')!.files) {
        assert.equal((await hub.app.request(`/api/v1/skits/alice/kit/releases/1.0.0/files/${f.path}`)).status, 200, f.path);
      }
      const size = hub.storage.registry.getRelease('alice/kit', '1.0.0')!.storedBytes;
      const tight = await hubFixture({ limits: { maxOwnerStorageBytes: Math.floor(size * 2.5) } });
      try {
        const bob = tight.user('bob');
        const bobs = await Promise.all(variants.map((v, i) => packSkit(twoSkillTree('bob/kit', { [`notes-${i}.md`]: `note ${i}\n` }))));
        try {
          const quota = await Promise.all(bobs.map((v, i) => tight.publish(bob.auth, 'bob/kit', `1.0.${i}`, v.archive)));
          assert.deepEqual(quota.map((r) => r.status).sort(), [201, 201, 413, 413, 413]);
          assert.deepEqual(await blobFiles(tight.dataDir), referencedBlobs(tight, 'bob/kit'), 'the quota\'s losers stored nothing');
        } finally {
          for (const v of bobs) await v.cleanup();
        }
      } finally {
        await tight.cleanup();
      }
    } finally {
      for (const v of variants) await v.cleanup();
    }
  });

  it('refuses an invalid SKIT with 422 and exactly the diagnostics of `sf skit validate`', async () => {
    const bad = await packSkit(twoSkillTree('alice/kit', { 'skills/summarize/SKILL.md': '---\nname: Summarize Things\n---\n\nNo description.\n' }));
    try {
      const expected = validationReport(await validateSkitDir(bad.dir));
      assert.equal(expected.ok, false);
      const res = await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', bad.archive);
      assert.equal(res.status, 422);
      const { error } = await res.json();
      assert.equal(error.code, 'SF_E_VALIDATION');
      assert.deepEqual(error.data.diagnostics, expected.diagnostics);
      assert.equal(hub.storage.registry.getSkit('alice/kit'), undefined);
      assert.deepEqual(await blobFiles(hub.dataDir), []);
    } finally {
      await bad.cleanup();
    }
  });

  it('refuses a README id that is not the URL owner/name', async () => {
    const res = await hub.publish(hub.user('alice').auth, 'alice/other', '1.0.0', kit.archive);
    assert.equal(res.status, 422);
    const { error } = await res.json();
    assert.equal(error.data.diagnostics[0].code, 'HUB_SKIT_ID_MISMATCH');
  });

  it('gives a single-skill upload the id owner/name', async () => {
    const single = await packSkit({ 'SKILL.md': '---\nname: hello\ndescription: Says hello. Use when greeting.\n---\n\nSay hello.\n' }, 'whatever');
    try {
      const res = await hub.publish(hub.user('alice').auth, 'alice/greeter', '0.1.0', single.archive);
      assert.equal(res.status, 201, await res.clone().text());
      const release = (await res.json()).release;
      assert.equal(release.skills[0].id, 'alice/greeter:hello');
      assert.equal(release.skills[0].path, '');
    } finally {
      await single.cleanup();
    }
  });

  it('a client bundle hash that does not match the bytes is a 422 tamper error, and nothing is stored', async () => {
    const forged = `sha256:${'0'.repeat(64)}`;
    const res = await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive, {}, { 'x-forge-bundle-hash': forged });
    assert.equal(res.status, 422);
    const { error } = await res.json();
    assert.equal(error.code, 'SF_E_HASH_MISMATCH');
    assert.equal(error.data.actual, kit.hashes!.bundle);
    assert.equal(hub.storage.registry.getSkit('alice/kit'), undefined);
    assert.deepEqual(await blobFiles(hub.dataDir), []);
    const ok = await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive, {}, { 'x-forge-bundle-hash': kit.hashes!.bundle });
    assert.equal(ok.status, 201);
  });

  it('builds per-skill archives with SKILL.md at the root and shared mappings materialized', async () => {
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive);
    const res = await hub.app.request('/r/alice/kit/1.0.0/skills/review.tgz');
    assert.equal(res.status, 200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const release = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    const review = release.skills.find((s) => s.name === 'review')!;
    assert.equal(await sha256(bytes), review.archiveSha256);
    const contents = await readArchiveEntries(bytes);
    const paths = contents.files.map((f) => f.path).sort();
    assert.deepEqual(paths, ['SKILL.md', 'references/style/guide.md']);
    const entries = await Promise.all(contents.files.map(async (f) => ({ path: f.path, mode: f.mode, sha256: await sha256(f.data) })));
    assert.equal(digestListing('skill', entries), review.hash, 'the archive holds exactly the projection the skill hash covers');
    const skillMd = await hub.app.request('/r/alice/kit/1.0.0/skills/review/SKILL.md');
    assert.equal(skillMd.status, 200);
    assert.match(skillMd.headers.get('content-type')!, /^text\/markdown/);
    assert.equal(await skillMd.text(), await readFile(join(kit.dir, 'skills/review/SKILL.md'), 'utf8'));
  });

  it('lists files and serves file content per release', async () => {
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive);
    const list = await (await hub.app.request('/api/v1/skits/alice/kit/releases/1.0.0/files')).json();
    assert.deepEqual(list.files.map((f: { path: string }) => f.path), kit.hashes!.files.map((f) => f.path));
    const res = await hub.app.request('/api/v1/skits/alice/kit/releases/1.0.0/files/shared/references/style/guide.md');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(await res.text(), await readFile(join(kit.dir, 'shared/references/style/guide.md'), 'utf8'));
    assert.equal((await hub.app.request('/api/v1/skits/alice/kit/releases/1.0.0/files/nope.md')).status, 404);
  });

  it('rejects hostile archives through the upload route with the archive codes, storing nothing', async () => {
    const manifest = JSON.parse(await readFile(join(fixturesDir, 'archives/hostile/manifest.json'), 'utf8')) as { archives: { file: string; expect: string }[] };
    const picked = [
      'tar-traversal-dotdot.tar', 'tar-symlink-etc-passwd.tar', 'tar-hardlink-etc-passwd.tar', 'tar-setuid.tar',
      'tar-pax-path-traversal.tar', 'tar-case-collision.tar', 'tgz-gzip-bomb.tgz', 'zip-traversal.zip', 'zip-symlink.zip',
      'tar-declared-huge.tar', 'tar-bad-checksum.tar', 'not-an-archive.tgz',
    ];
    const status: Record<string, number> = { SF_E_ARCHIVE_UNSAFE: 422, SF_E_ARCHIVE_MALFORMED: 422, SF_E_ARCHIVE_LIMIT: 413, SF_E_ARCHIVE_FORMAT: 415 };
    const alice = hub.user('alice');
    for (const file of picked) {
      const { expect } = manifest.archives.find((a) => a.file === file)!;
      const bytes = await readFile(join(fixturesDir, 'archives/hostile', file));
      const res = await hub.publish(alice.auth, 'alice/kit', '1.0.0', bytes);
      assert.equal(res.status, status[expect], file);
      assert.equal((await res.json()).error.code, expect, file);
    }
    assert.equal(hub.storage.registry.getSkit('alice/kit'), undefined);
    assert.deepEqual(await blobFiles(hub.dataDir), []);
  });
});
