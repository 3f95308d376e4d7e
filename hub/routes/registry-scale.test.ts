import assert from 'node:assert/strict';
import { latestVersion } from '../../core/skit/semver.js';
import { compareCodeUnits } from '../../core/skit/tree.js';
import { matchesQuery } from '../registry/search.js';
import { skitSummary } from '../registry/views.js';
import { hubIndex } from '../registry/well-known.js';
import type { HubStorage, ReleaseRecord } from '../storage/ports.js';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';
import { countLmdbReads, type LmdbReads } from '../test-support/lmdb-reads.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../test-support/skit-archive.js';

const patch = (body: unknown, auth: Record<string, string>) => ({ method: 'PATCH', body: JSON.stringify(body), headers: { ...auth, 'content-type': 'application/json' } });

/** The newest non-quarantined release, computed the slow way from every release (the reference). */
function slowLatest(storage: HubStorage, skitId: string): ReleaseRecord | undefined {
  const candidates = storage.registry.listReleases(skitId).filter((r) => !r.quarantined);
  const version = latestVersion(candidates.map((r) => r.version));
  return candidates.find((r) => r.version === version);
}

/** What `/api/v1/skits` answered before the list was indexed: every SKIT filtered, sorted, then one page cut out. */
function slowList(storage: HubStorage, sees: (owner: string) => boolean, query: URLSearchParams) {
  const limit = Math.min(Number(query.get('limit') ?? 50), 200);
  const after = query.get('after');
  const found = storage.registry
    .listSkits()
    .filter((s) => s.visibility === 'public' || sees(s.owner))
    .map((skit) => ({ skit, latest: slowLatest(storage, skit.id) }))
    .filter(({ skit, latest }) => matchesQuery(skit, latest, { text: query.get('q') ?? undefined, owner: query.get('owner') ?? undefined, tag: query.get('tag') ?? undefined }))
    .sort((a, b) => compareCodeUnits(a.skit.id, b.skit.id));
  const start = after !== null ? found.findIndex(({ skit }) => compareCodeUnits(skit.id, after) > 0) : Number(query.get('offset') ?? 0);
  const page = start < 0 ? [] : found.slice(start, start + limit);
  const more = start >= 0 && start + limit < found.length;
  const next = more ? page[page.length - 1].skit.id : undefined;
  return { total: found.length, offset: Math.max(start, 0), limit, ...(next !== undefined ? { next } : {}), skits: page.map(({ skit, latest }) => skitSummary('http://localhost', skit, latest)) };
}

function slowHubIndex(storage: HubStorage) {
  const listed = storage.registry
    .listSkits()
    .filter((s) => s.visibility === 'public' && !s.quarantined)
    .flatMap((skit) => {
      const release = slowLatest(storage, skit.id);
      return release ? [{ skit, release }] : [];
    });
  return hubIndex('', listed);
}

const QUERIES = ['', 'q=zebra', 'q=review', 'q=pull-request+code', 'owner=bob', 'owner=Alice', 'tag=t1', 'tag=T0&owner=alice', 'q=nothing-at-all', 'offset=2', 'offset=99'];

describe('hub registry at scale: what publish, list and the discovery index read', () => {
  let hub: HubFixture;
  let reads: LmdbReads;
  const kits = new Map<string, PackedSkit>();
  const pack = async (id: string, extra: Record<string, string> = {}) => {
    const k = await packSkit(twoSkillTree(id, extra));
    kits.set(`${id}#${kits.size}`, k);
    return k;
  };
  const put = async (auth: Record<string, string>, id: string, version: string, query: Record<string, string> = {}, extra: Record<string, string> = {}) => {
    const res = await hub.publish(auth, id, version, (await pack(id, extra)).archive, query);
    assert.equal(res.status, 201, `${id}@${version}: ${await res.clone().text()}`);
  };
  beforeEach(async () => {
    hub = await hubFixture();
    reads = countLmdbReads(hub.storage.registry);
  });
  afterEach(async () => {
    reads.restore();
    for (const k of kits.values()) await k.cleanup();
    kits.clear();
    await hub.cleanup();
  });

  /** Every visibility, flag and release shape the list and the index have rules for. */
  async function scenario() {
    const alice = hub.user('alice');
    const bob = hub.user('bob');
    const root = hub.user('root', ['registry:read', 'registry:write', 'admin'], { admin: true });
    const zebra = { 'skills/summarize/SKILL.md': '---\nname: summarize\ndescription: Summarize like a zebra. Use when asked for a summary.\n---\n\nShort.\n' };
    for (const v of ['1.0.0', '1.1.0', '2.0.0-beta.1']) await put(alice.auth, 'alice/a1', v, { tags: 't0,review' });
    await put(alice.auth, 'alice/a2', '1.0.0', { visibility: 'unlisted', tags: 't1' });
    await put(alice.auth, 'alice/a3', '0.1.0-alpha.1', { visibility: 'private' });
    await put(alice.auth, 'alice/a4', '1.0.0', { tags: 't1' }, zebra);
    for (const v of ['1.0.0', '2.0.0']) await put(bob.auth, 'bob/b1', v, { tags: 't1' }, v === '2.0.0' ? zebra : {});
    await put(bob.auth, 'bob/b2', '1.0.0');
    await put(bob.auth, 'bob/b3', '1.0.0');
    await put(bob.auth, 'bob/b4', '1.0.0', { description: 'code helpers' });
    const ok = async (path: string, init: RequestInit) => assert.equal((await hub.app.request(path, init)).status, 200, path);
    await ok('/api/v1/skits/bob/b1/releases/2.0.0', patch({ quarantined: { reason: 'leaks' } }, bob.auth));
    await ok('/api/v1/skits/bob/b2', patch({ quarantined: { reason: 'malware' } }, root.auth));
    await ok('/api/v1/skits/bob/b3/releases/1.0.0', patch({ quarantined: { reason: 'bad' }, deprecated: { message: 'old' } }, bob.auth));
    await ok('/api/v1/skits/bob/b4', patch({ deprecated: { message: 'moved' }, visibility: 'private' }, bob.auth));
    return { alice, bob, root };
  }

  async function assertListsAsBefore(who: Record<string, { auth: Record<string, string>; sees: (owner: string) => boolean }>) {
    for (const [name, { auth, sees }] of Object.entries(who)) {
      for (const q of QUERIES) {
        const res = await hub.app.request(`http://localhost/api/v1/skits?${q}`, { headers: auth });
        assert.deepEqual(await res.json(), slowList(hub.storage, sees, new URLSearchParams(q)), `${name}: ${q}`);
      }
      // walk every page of two, by cursor, with a filter and without
      for (const q of ['limit=2', 'limit=2&tag=t1', 'limit=1&q=zebra']) {
        let params = new URLSearchParams(q);
        for (let pages = 0; pages < 20; pages++) {
          const res = await hub.app.request(`http://localhost/api/v1/skits?${params}`, { headers: auth });
          const body = await res.json();
          const expected = slowList(hub.storage, sees, params);
          assert.deepEqual(body, expected, `${name}: ${params}`);
          const link = res.headers.get('link');
          if (expected.next === undefined) {
            assert.equal(link, null);
            break;
          }
          params = new URLSearchParams(params);
          params.set('after', expected.next);
          assert.equal(link, `</api/v1/skits?${params}>; rel="next"`);
        }
      }
    }
  }

  it('list pages and the discovery index answer exactly what the full scan did, through publishes, flags and visibility changes', async () => {
    const { alice, bob, root } = await scenario();
    const who = {
      anonymous: { auth: {}, sees: () => false },
      alice: { auth: alice.auth, sees: (o: string) => o === 'alice' },
      bob: { auth: bob.auth, sees: (o: string) => o === 'bob' },
      admin: { auth: root.auth, sees: () => true },
    };
    await assertListsAsBefore(who);
    const index = async () => (await hub.app.request('/.well-known/agent-skills/index.json')).json();
    assert.deepEqual(await index(), slowHubIndex(hub.storage));
    // lifting a quarantine, unlisting, and a newer release each change the answers
    assert.equal((await hub.app.request('/api/v1/skits/bob/b1/releases/2.0.0', patch({ quarantined: null }, bob.auth))).status, 200);
    assert.equal((await hub.app.request('/api/v1/skits/alice/a4', patch({ visibility: 'unlisted' }, alice.auth))).status, 200);
    await put(alice.auth, 'alice/a1', '1.2.0');
    await assertListsAsBefore(who);
    assert.deepEqual(await index(), slowHubIndex(hub.storage));
    assert.equal((await (await hub.app.request('/api/v1/skits/alice/a1')).json()).latestVersion, '1.2.0');
  });

  it('a publish reads no range of releases: the quotas come from counters kept with the releases', async () => {
    const alice = hub.user('alice');
    for (const v of ['1.0.0', '1.0.1', '1.0.2']) await put(alice.auth, 'alice/kit', v);
    await put(alice.auth, 'alice/other', '1.0.0');
    const archive = (await pack('alice/kit')).archive;
    reads.reset();
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.3', archive)).status, 201);
    assert.equal(reads.ranges('releases'), 0, 'no scan of the owner or the SKIT releases');
    assert.equal(hub.storage.registry.releaseCount('alice/kit'), 4);
    const stored = [...hub.storage.registry.listReleases('alice/kit'), ...hub.storage.registry.listReleases('alice/other')].reduce((n, r) => n + r.storedBytes, 0);
    assert.equal(hub.storage.registry.ownerStorageBytes('alice'), stored);
  });

  it('a list page reads no releases, and the discovery index is built once until the registry changes', async () => {
    const { alice } = await scenario();
    reads.reset();
    assert.equal((await hub.app.request('/api/v1/skits?limit=2&q=zebra')).status, 200);
    assert.equal((await hub.app.request('/api/v1/skits?after=alice%2Fa2&limit=3', { headers: alice.auth })).status, 200);
    assert.equal(reads.ranges('releases') + reads.gets('releases'), 0, 'a page shows the latest release from the SKIT index');

    const first = await hub.app.request('/.well-known/agent-skills/index.json');
    const etag = first.headers.get('etag');
    const body = await first.text();
    reads.reset();
    const again = await hub.app.request('/.well-known/agent-skills/index.json');
    assert.equal(await again.text(), body);
    assert.equal(again.headers.get('etag'), etag);
    assert.equal((await hub.app.request('/.well-known/agent-skills/index.json', { headers: { 'if-none-match': etag! } })).status, 304);
    assert.equal(reads.ranges('skits') + reads.ranges('releases') + reads.gets('releases'), 0, 'an unchanged registry serves the cached index');

    const fresh = { 'skills/summarize/SKILL.md': '---\nname: summarize\ndescription: Summarize afresh. Use when asked for a summary.\n---\n\nNew.\n' };
    let previous = etag;
    const changes: [string, () => unknown][] = [
      ['a publish', () => put(alice.auth, 'alice/a1', '1.3.0', {}, fresh)],
      ['a release quarantine', () => hub.app.request('/api/v1/skits/alice/a1/releases/1.3.0', patch({ quarantined: { reason: 'x' } }, alice.auth))],
      ['a visibility change', () => hub.app.request('/api/v1/skits/alice/a1', patch({ visibility: 'unlisted' }, alice.auth))],
      ['a SKIT quarantine', () => hub.app.request('/api/v1/skits/alice/a4', patch({ quarantined: { reason: 'x' } }, alice.auth))],
    ];
    for (const [what, change] of changes) {
      await change();
      const res = await hub.app.request('/.well-known/agent-skills/index.json');
      assert.notEqual(res.headers.get('etag'), previous, `${what} changes the index`);
      previous = res.headers.get('etag');
      assert.deepEqual(await res.json(), slowHubIndex(hub.storage), what);
    }
  });
});
