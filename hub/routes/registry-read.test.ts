import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../test-support/skit-archive.js';

const json = (body: unknown, auth: Record<string, string>) => ({ method: 'PATCH', body: JSON.stringify(body), headers: { ...auth, 'content-type': 'application/json' } });
const sha = (b: ArrayBuffer) => createHash('sha256').update(Buffer.from(b)).digest('hex');

describe('hub registry: discovery, detail and flags', () => {
  let hub: HubFixture;
  const kits: PackedSkit[] = [];
  const pack = async (id: string, extra: Record<string, string> = {}) => {
    const k = await packSkit(twoSkillTree(id, extra));
    kits.push(k);
    return k;
  };
  beforeEach(async () => (hub = await hubFixture()));
  afterEach(async () => {
    for (const k of kits.splice(0)) await k.cleanup();
    await hub.cleanup();
  });

  it('serves ETag = bundle hash, and 304 for a matching If-None-Match', async () => {
    const kit = await pack('alice/kit');
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive);
    const res = await hub.app.request('/r/alice/kit/1.0.0.tgz');
    assert.equal(res.headers.get('etag'), `"${kit.hashes!.bundle}"`);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const again = await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: { 'if-none-match': `W/"x", "${kit.hashes!.bundle}"` } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    assert.equal((await hub.app.request('/r/alice/kit/latest.tgz')).status, 404, 'versioned URLs take exact versions only');
  });

  it('per-SKIT well-known index lists the latest release with digests of the served bytes', async () => {
    const alice = hub.user('alice');
    await hub.publish(alice.auth, 'alice/kit', '1.0.0', (await pack('alice/kit')).archive);
    const v11 = await pack('alice/kit', { 'skills/summarize/SKILL.md': '---\nname: summarize\ndescription: Summarize better. Use when asked for a summary.\n---\n\nShorter.\n' });
    const first = await (await hub.app.request('/s/alice/kit/.well-known/agent-skills/index.json')).json();
    assert.equal(first.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    for (const entry of first.skills) {
      assert.equal(entry.type, 'archive');
      const artifact = await hub.app.request(entry.url);
      assert.equal(`sha256:${sha(await artifact.arrayBuffer())}`, entry.digest, entry.name);
    }
    await hub.publish(alice.auth, 'alice/kit', '1.1.0', v11.archive);
    const second = await (await hub.app.request('/s/alice/kit/.well-known/agent-skills/index.json')).json();
    const digest = (idx: { skills: { name: string; digest: string }[] }, n: string) => idx.skills.find((s) => s.name === n)!.digest;
    assert.notEqual(digest(second, 'summarize'), digest(first, 'summarize'));
    assert.equal(digest(second, 'review'), digest(first, 'review'), 'an unchanged skill keeps its digest, so clients do not re-download it');
    const pinned = await (await hub.app.request('/r/alice/kit/1.0.0/.well-known/agent-skills/index.json')).json();
    assert.deepEqual(pinned, first, 'the release index is immutable');
  });

  it('the hub-wide index keeps one entry per skill name: the earliest SKIT wins', async () => {
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', (await pack('alice/kit')).archive);
    await hub.publish(hub.user('bob').auth, 'bob/kit', '1.0.0', (await pack('bob/kit')).archive);
    const index = await (await hub.app.request('/.well-known/agent-skills/index.json')).json();
    assert.deepEqual(index.skills.map((s: { name: string; url: string }) => [s.name, s.url]), [
      ['review', '/r/alice/kit/1.0.0/skills/review.tgz'],
      ['summarize', '/r/alice/kit/1.0.0/skills/summarize.tgz'],
    ]);
    const bobs = await (await hub.app.request('/s/bob/kit/.well-known/agent-skills/index.json')).json();
    assert.equal(bobs.skills[0].url, '/r/bob/kit/1.0.0/skills/review.tgz');
  });

  it('leaves default-disabled skills out of well-known indexes', async () => {
    const kit = await pack('alice/kit');
    const text = (await readFile(`${kit.dir}/README.md`, 'utf8')).replace('path: skills/summarize\n    default_enabled: true', 'path: skills/summarize\n    default_enabled: false');
    const off = await pack('alice/kit', { 'README.md': text });
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', off.archive);
    const index = await (await hub.app.request('/s/alice/kit/.well-known/agent-skills/index.json')).json();
    assert.deepEqual(index.skills.map((s: { name: string }) => s.name), ['review']);
  });

  it('pages the list by key: a SKIT published between pages is neither repeated nor skipped; bad limits are 400', async () => {
    for (const id of ['alice/b', 'alice/d']) await hub.publish(hub.user('alice').auth, id, '1.0.0', (await pack(id)).archive);
    const first = await hub.app.request('/api/v1/skits?limit=1');
    const one = await first.json();
    assert.deepEqual(one.skits.map((s: { id: string }) => s.id), ['alice/b']);
    assert.equal(one.next, 'alice/b');
    assert.equal(first.headers.get('link'), '</api/v1/skits?limit=1&after=alice%2Fb>; rel="next"');
    // published meanwhile, sorting before the cursor
    await hub.publish(hub.user('alice').auth, 'alice/a', '1.0.0', (await pack('alice/a')).archive);
    const two = await (await hub.app.request('/api/v1/skits?limit=1&after=alice%2Fb')).json();
    assert.deepEqual(two.skits.map((s: { id: string }) => s.id), ['alice/d']);
    assert.equal(two.next, undefined, 'the last page has no next');
    for (const bad of ['limit=0', 'limit=', 'offset=1e3', 'offset=-1']) assert.equal((await hub.app.request(`/api/v1/skits?${bad}`)).status, 400, bad);
    // a misspelt filter, or one given twice, is refused rather than answered with every SKIT
    for (const [bad, said] of [['ownr=bob', 'unknown query parameter ownr'], ['owner=bob&owner=alice', 'query parameter owner given more than once']]) {
      const res = await hub.app.request(`/api/v1/skits?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.ok(JSON.stringify(await res.json()).includes(said), bad);
    }
  });

  it('searches by text, owner and tag', async () => {
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', (await pack('alice/kit')).archive, { tags: 'review,quality', description: 'Code review helpers' });
    await hub.publish(hub.user('bob').auth, 'bob/notes', '1.0.0', (await pack('bob/notes')).archive, { tags: 'writing' });
    const ids = async (q: string) => (await (await hub.app.request(`/api/v1/skits?${q}`)).json()).skits.map((s: { id: string }) => s.id);
    assert.deepEqual(await ids(''), ['alice/kit', 'bob/notes']);
    assert.deepEqual(await ids('q=code+helpers'), ['alice/kit']);
    assert.deepEqual(await ids('q=pull-request'), ['alice/kit', 'bob/notes'], 'skill descriptions are searched');
    assert.deepEqual(await ids('owner=bob'), ['bob/notes']);
    assert.deepEqual(await ids('tag=quality'), ['alice/kit']);
    assert.deepEqual(await ids('q=nothing-like-this'), []);
  });

  it('shows detail with skills, hashes and releases; deprecation and quarantine carry replacement guidance', async () => {
    const alice = hub.user('alice');
    const kit = await pack('alice/kit');
    await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive);
    await hub.publish(alice.auth, 'alice/kit', '1.1.0', kit.archive);
    const detail = await (await hub.app.request('/api/v1/skits/alice/kit')).json();
    assert.deepEqual(detail.releases.map((r: { version: string }) => r.version), ['1.1.0', '1.0.0']);
    assert.equal(detail.latest.version, '1.1.0');
    assert.deepEqual(detail.latest.skills.map((s: { hash: string }) => s.hash), kit.hashes!.skills.map((s) => s.hash));

    assert.equal((await hub.app.request('/api/v1/skits/alice/kit', json({ deprecated: { message: 'moved', replacement: 'alice/kit2' } }, alice.auth))).status, 200);
    const q = await hub.app.request('/api/v1/skits/alice/kit/releases/1.1.0', json({ quarantined: { reason: 'leaks tokens', replacement: 'alice/kit@1.0.0' } }, alice.auth));
    assert.equal(q.status, 200);
    const after = await (await hub.app.request('/api/v1/skits/alice/kit')).json();
    assert.deepEqual(after.deprecated.replacement, 'alice/kit2');
    assert.equal(after.latestVersion, '1.0.0', 'a quarantined release is never the latest');
    assert.equal(after.releases[0].quarantined.reason, 'leaks tokens');
    const refused = await hub.app.request('/r/alice/kit/1.1.0.tgz', { headers: hub.user('bob').auth });
    assert.equal(refused.status, 410);
    const err = (await refused.json()).error;
    assert.equal(err.code, 'SF_E_QUARANTINED');
    assert.match(err.hint, /alice\/kit@1\.0\.0/);
    const managed = await hub.app.request('/r/alice/kit/1.1.0.tgz', { headers: alice.auth });
    assert.equal(managed.status, 200, 'managers can still inspect it');
    // no shared cache may keep it and serve it to everyone else
    assert.equal(managed.headers.get('cache-control'), 'private, no-store');
    assert.equal(managed.headers.get('vary'), 'authorization');
  });

  it('HEAD sends the headers GET sends, Content-Length included, and no body', async () => {
    const kit = await pack('alice/kit');
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive);
    for (const path of ['/api/v1/skits/alice/kit', '/.well-known/agent-skills/index.json', '/r/alice/kit/1.0.0.tgz']) {
      const get = await hub.app.request(path);
      const length = (await get.arrayBuffer()).byteLength;
      const head = await hub.app.request(path, { method: 'HEAD' });
      assert.equal(head.status, 200, path);
      assert.equal(head.headers.get('content-length'), String(length), path);
      assert.equal((await head.arrayBuffer()).byteLength, 0, path);
    }
  });

  it('a method a resource does not take is 405 with Allow; a path no route has is 404', async () => {
    const kit = await pack('alice/kit');
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive);
    const del = await hub.app.request('/r/alice/kit/1.0.0.tgz', { method: 'DELETE' });
    assert.equal(del.status, 405);
    assert.equal(del.headers.get('allow'), 'GET, HEAD');
    assert.equal((await del.json()).error.code, 'SF_E_USAGE');
    const put = await hub.app.request('/api/v1/skits/alice/kit', { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.match(put.headers.get('allow') ?? '', /GET/);
    assert.equal((await hub.app.request('/no/such/route')).status, 404);
  });

  it('sends Last-Modified (the publication time) and answers If-Modified-Since when there is no If-None-Match', async () => {
    const kit = await pack('alice/kit');
    await hub.publish(hub.user('alice').auth, 'alice/kit', '1.0.0', kit.archive);
    const res = await hub.app.request('/r/alice/kit/1.0.0.tgz');
    const lastModified = res.headers.get('last-modified');
    assert.ok(lastModified && Number.isFinite(Date.parse(lastModified)), String(lastModified));
    const later = new Date(Date.parse(lastModified) + 60_000).toUTCString();
    const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: { 'if-modified-since': later } })).status, 304);
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: { 'if-modified-since': lastModified } })).status, 304);
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: { 'if-modified-since': earlier } })).status, 200);
    // If-None-Match decides when both are sent (RFC 9110 §13.2.2)
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: { 'if-modified-since': later, 'if-none-match': '"other"' } })).status, 200);
  });

  it('a quarantine set by an admin can only be lifted by an admin', async () => {
    const alice = hub.user('alice');
    const root = hub.user('root', ['admin'], { admin: true });
    await hub.publish(alice.auth, 'alice/kit', '1.0.0', (await pack('alice/kit')).archive);
    assert.equal((await hub.app.request('/api/v1/skits/alice/kit', json({ quarantined: { reason: 'malware' } }, root.auth))).status, 200);
    assert.equal((await hub.app.request('/api/v1/skits/alice/kit', json({ quarantined: null }, alice.auth))).status, 403);
    assert.equal((await hub.app.request('/s/alice/kit/.well-known/agent-skills/index.json')).status, 410);
    assert.deepEqual((await (await hub.app.request('/.well-known/agent-skills/index.json')).json()).skills, []);
    assert.equal((await hub.app.request('/api/v1/skits/alice/kit', json({ quarantined: null }, root.auth))).status, 200);
    assert.equal((await hub.app.request('/s/alice/kit/.well-known/agent-skills/index.json')).status, 200);
  });
});
