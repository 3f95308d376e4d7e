import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../../core/errors/index.js';
import { HubClient } from '../../core/hub-client/client.js';
import { downloadRelease, fetchRelease } from '../../core/hub-client/release.js';
import { verifyAgainstHub } from '../../core/hub-client/verify.js';
import type { InstallationRecord } from '../../core/library/types.js';
import { hubResolver, type HubResolvedSource } from '../../core/sources/hub.js';
import { tempDir } from '../../test-support/index.js';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../test-support/skit-archive.js';

const HUB = 'http://hub.test';

describe('hub client: resolver, verified downloads and doctor checks against an in-process hub', () => {
  let hub: HubFixture;
  let kit: PackedSkit;
  let work: { path: string; cleanup: () => Promise<void> };
  let fetchHub: typeof fetch;
  beforeEach(async () => {
    hub = await hubFixture();
    kit = await packSkit(twoSkillTree('alice/kit'));
    work = await tempDir('sf-hub-client-');
    fetchHub = ((input: string | URL | Request, init?: RequestInit) => hub.app.request(String(input), init)) as typeof fetch;
    assert.equal((await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
  });
  afterEach(async () => {
    await kit.cleanup();
    await work.cleanup();
    await hub.cleanup();
  });

  it('claims owner/name[@version] and the release and SKIT URLs of known hubs only', () => {
    const r = hubResolver({ hubs: [{ url: HUB }] });
    for (const yes of ['alice/kit', 'alice/kit@1.0.0', `${HUB}/r/alice/kit/1.0.0`, `${HUB}/r/alice/kit/1.0.0.tgz`, `${HUB}/s/alice/kit`]) assert.ok(r.matches(yes), yes);
    for (const no of ['Alice/kit', 'alice/kit@', 'alice', 'http://other.test/r/alice/kit/1.0.0', `${HUB}/api/v1/skits/alice/kit`, 'https://git.example/alice/kit.git']) assert.ok(!r.matches(no), no);
    assert.ok(!hubResolver({ hubs: [] }).matches('alice/kit'), 'no hub configured: owner/name is not claimed');
  });

  it('resolves to a verified tree with the hub version and a version-less canonical source; the range to record is ^<version>', async () => {
    const r = hubResolver({ hubs: [{ url: HUB }], fetch: fetchHub });
    const resolved = await r.resolve('alice/kit@1.0.0', { cwd: work.path, workDir: work.path });
    assert.equal(resolved.kind, 'hub');
    assert.equal(resolved.canonical, `${HUB}/s/alice/kit`);
    assert.equal((resolved as HubResolvedSource).version, '1.0.0');
    assert.equal((resolved as HubResolvedSource).range, '^1.0.0');
    assert.equal(await readFile(join(resolved.dir, 'README.md'), 'utf8'), await readFile(join(kit.dir, 'README.md'), 'utf8'));
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.2.0', kit.archive);
    const latest = await r.resolve(`${HUB}/s/alice/kit`, { cwd: work.path, workDir: join(work.path, 'w2') });
    assert.equal((latest as HubResolvedSource).version, '1.2.0');
    assert.equal((latest as HubResolvedSource).range, '^1.2.0');
    assert.equal(latest.canonical, `${HUB}/s/alice/kit`);
  });

  it('with a range, takes the newest installable release inside it and names a newer one beyond it', async () => {
    const alice = hub.user('alice').auth;
    for (const v of ['1.1.0', '1.2.0', '1.3.0-rc.1', '2.0.0', '2.1.0-beta.1']) assert.equal((await hub.publish(alice, 'alice/kit', v, kit.archive)).status, 201, v);
    hub.storage.registry.updateReleaseFlags('alice/kit', '1.2.0', { quarantined: { reason: 'bad', at: 'now' } });
    const r = hubResolver({ hubs: [{ url: HUB }], fetch: fetchHub });
    let n = 0;
    const resolve = (range: string, input = `${HUB}/s/alice/kit`) => r.resolve(input, { cwd: work.path, workDir: join(work.path, `w${++n}`), range }) as Promise<HubResolvedSource>;
    const within = await resolve('^1.0.0');
    assert.deepEqual([within.version, within.range, within.newer], ['1.1.0', '^1.0.0', '2.0.0'], 'not the quarantined 1.2.0, nor the prerelease 1.3.0-rc.1');
    const top = await resolve('^2.0.0');
    assert.deepEqual([top.version, top.range, top.newer], ['2.0.0', '^2.0.0', undefined]);
    // a version asked for wins over the range, and records its own
    const asked = await r.resolve('alice/kit@2.0.0', { cwd: work.path, workDir: join(work.path, 'w-asked'), range: '^1.0.0' }) as HubResolvedSource;
    assert.deepEqual([asked.version, asked.range], ['2.0.0', '^2.0.0']);
    await assert.rejects(resolve('^3.0.0'), (e: unknown) => isSfError(e, 'SF_E_NOT_FOUND') && /no installable release within \^3\.0\.0/.test(e.message));
    await assert.rejects(resolve('^0.1.0'), (e: unknown) => isSfError(e, 'SF_E_NOT_FOUND') && e.hint!.includes('sf skit update alice/kit --version 2.0.0 (or --version latest)'));
  });

  it('refuses an archive whose bytes do not match the hub record (SF_E_HASH_MISMATCH), leaving nothing', async () => {
    const release = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    const blob = join(hub.dataDir, 'blobs', release.archiveSha256.slice(0, 2), release.archiveSha256);
    const bytes = await readFile(blob);
    bytes[bytes.length - 10] ^= 0xff;
    await writeFile(blob, bytes);
    const client = new HubClient({ url: HUB }, { fetch: fetchHub });
    const dest = join(work.path, 'out');
    await assert.rejects(downloadRelease(client, await fetchRelease(client, 'alice/kit', '1.0.0'), dest), (e) => isSfError(e, 'SF_E_HASH_MISMATCH'));
    await assert.rejects(readFile(join(dest, 'README.md')));
  });

  it('doctor verification: matching hashes verify; a different bundle or skill hash, or a quarantine, is reported', async () => {
    const release = hub.storage.registry.getRelease('alice/kit', '1.0.0')!;
    const record = {
      skitId: 'alice/kit',
      release: { version: '1.0.0' },
      bundleHash: release.bundleHash,
      skills: release.skills.map((s) => ({ name: s.name, id: s.id, hash: s.hash, path: s.path, defaultEnabled: true })),
      source: { kind: 'hub', canonical: `${HUB}/s/alice/kit`, fingerprint: 'x' },
    } as unknown as InstallationRecord;
    const codes = async (r: InstallationRecord) => (await verifyAgainstHub(r, [], fetchHub)).map((d) => d.code);
    assert.deepEqual(await codes(record), ['SF_HUB_VERIFIED']);
    assert.deepEqual(await codes({ ...record, bundleHash: `sha256:${'1'.repeat(64)}` }), ['SF_HUB_BUNDLE_MISMATCH']);
    // the reinstall hint names the exact release: owner/name@version on the default hub, its release URL on another
    const hintFor = async (hubs: { url: string }[]) => (await verifyAgainstHub({ ...record, bundleHash: `sha256:${'1'.repeat(64)}` }, hubs, fetchHub))[0].hint;
    assert.equal(await hintFor([{ url: HUB }]), 'reinstall the exact release: sf add skit alice/kit@1.0.0 --force');
    assert.equal(await hintFor([{ url: 'https://other.example' }, { url: HUB }]), `reinstall the exact release: sf add skit ${HUB}/r/alice/kit/1.0.0 --force`);
    const skills = record.skills.map((s, i) => (i === 0 ? { ...s, hash: `sha256:${'2'.repeat(64)}` } : s));
    assert.deepEqual(await codes({ ...record, skills }), ['SF_HUB_SKILL_MISMATCH']);
    hub.storage.registry.updateReleaseFlags('alice/kit', '1.0.0', { quarantined: { reason: 'bad', at: 'now' } });
    assert.deepEqual(await codes(record), ['SF_HUB_QUARANTINED']);
    const offline = await verifyAgainstHub(record, [], (() => Promise.reject(new TypeError('fetch failed'))) as typeof fetch);
    assert.deepEqual(offline.map((d) => [d.code, d.severity]), [['SF_HUB_UNREACHABLE', 'info']]);
    // a credential sf will not send over plain http, or one the hub refuses (revoked, or not a
    // token at all), is about the login, not the release
    const unverified = async (token: string) => {
      const found = await verifyAgainstHub(record, [{ url: HUB, token }], fetchHub);
      assert.deepEqual(found.map((d) => [d.code, d.severity]), [['SF_HUB_UNVERIFIED', 'warning']], JSON.stringify(found));
      assert.ok(!found[0].message.includes(token), 'the token is not echoed');
    };
    await unverified('sfp_madeUpOrRevoked');
    const allowed = process.env.SF_HUB_ALLOW_HTTP;
    process.env.SF_HUB_ALLOW_HTTP = '1';
    try {
      for (const token of ['sfp_madeUpOrRevoked', 'sfp_two\nlines']) await unverified(token);
    } finally {
      if (allowed === undefined) delete process.env.SF_HUB_ALLOW_HTTP;
      else process.env.SF_HUB_ALLOW_HTTP = allowed;
    }
  });
});
