import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hubFixture, type HubFixture } from '../test-support/hub-fixture.js';
import { packSkit, twoSkillTree, type PackedSkit } from '../../test-support/skit-archive.js';

/** Every route that can reveal a SKIT, for owner/name `id` and version 1.0.0. */
const readRoutes = (id: string) => [
  `/api/v1/skits/${id}`,
  `/api/v1/skits/${id}/releases`,
  `/api/v1/skits/${id}/releases/1.0.0`,
  `/api/v1/skits/${id}/releases/latest`,
  `/api/v1/skits/${id}/releases/1.0.0/files`,
  `/api/v1/skits/${id}/releases/1.0.0/files/README.md`,
  `/r/${id}/1.0.0.tgz`,
  `/r/${id}/1.0.0`,
  `/r/${id}/1.0.0/skills/review.tgz`,
  `/r/${id}/1.0.0/skills/review/SKILL.md`,
  `/r/${id}/1.0.0/.well-known/agent-skills/index.json`,
  `/s/${id}/.well-known/agent-skills/index.json`,
];

async function snapshot(res: Response) {
  return { status: res.status, type: res.headers.get('content-type'), etag: res.headers.get('etag'), body: await res.text() };
}

async function storedState(hub: HubFixture) {
  const root = join(hub.dataDir, 'blobs');
  const blobs: string[] = [];
  for (const shard of await readdir(root).catch(() => [] as string[])) blobs.push(...(await readdir(join(root, shard))));
  return { blobs: blobs.sort(), skits: hub.storage.registry.listSkits(), releases: hub.storage.registry.listReleases('alice/kit') };
}

describe('hub registry: authorization and limits', () => {
  let hub: HubFixture;
  let kit: PackedSkit;
  beforeEach(async () => {
    hub = await hubFixture({ limits: { maxUploadBytes: 64 * 1024 } });
    kit = await packSkit(twoSkillTree('alice/kit'));
  });
  afterEach(async () => {
    await kit.cleanup();
    await hub.cleanup();
  });

  it('a private SKIT is indistinguishable from a missing one on every route, to anonymous and outsiders', async () => {
    const alice = hub.user('alice');
    const bob = hub.user('bob');
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive, { visibility: 'private' })).status, 201);
    // a second private SKIT name that does not exist, same spelling length so nothing leaks through sizes
    for (const [i, route] of readRoutes('alice/kit').entries()) {
      const missing = readRoutes('alice/kot')[i];
      for (const headers of [{}, bob.auth]) {
        const hidden = await snapshot(await hub.app.request(route, { headers }));
        const absent = await snapshot(await hub.app.request(missing, { headers }));
        assert.equal(hidden.status, 404, route);
        assert.deepEqual({ ...hidden, body: hidden.body.replaceAll('alice/kit', 'alice/kot') }, absent, route);
      }
      const own = await hub.app.request(route, { headers: alice.auth });
      assert.equal(own.status, 200, `the owner reads ${route}`);
    }
    const list = await (await hub.app.request('/api/v1/skits', { headers: bob.auth })).json();
    assert.equal(list.total, 0);
    const index = await (await hub.app.request('/.well-known/agent-skills/index.json')).json();
    assert.deepEqual(index.skills, []);
    const own = await (await hub.app.request('/api/v1/skits', { headers: alice.auth })).json();
    assert.deepEqual(own.skits.map((s: { id: string }) => s.id), ['alice/kit']);
  });

  it('private artifacts are cacheable only privately; public ones are immutable for a year', async () => {
    const alice = hub.user('alice');
    await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive, { visibility: 'private' });
    const res = await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: alice.auth });
    assert.equal(res.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    assert.equal(res.headers.get('vary'), 'authorization');
  });

  it('a quarantined release\'s files reach its managers uncached on the API files route, as on /r/; a private SKIT\'s are cached privately', async () => {
    const alice = hub.user('alice');
    const root = hub.user('root', ['admin'], { admin: true });
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
    const file = '/api/v1/skits/alice/kit/releases/1.0.0/files/README.md';
    assert.equal((await hub.app.request(file)).headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const patch = (path: string, body: object) => hub.app.request(path, { method: 'PATCH', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...root.auth } });
    const cacheOf = async (path: string) => {
      const res = await hub.app.request(path, { headers: alice.auth });
      assert.equal(res.status, 200, path);
      return [res.headers.get('cache-control'), res.headers.get('vary')];
    };
    for (const [flagged, lift] of [['/api/v1/skits/alice/kit/releases/1.0.0', '/api/v1/skits/alice/kit/releases/1.0.0'], ['/api/v1/skits/alice/kit', '/api/v1/skits/alice/kit']]) {
      assert.equal((await patch(flagged, { quarantined: { reason: 'malware' } })).status, 200);
      assert.equal((await hub.app.request(file)).status, 410);
      for (const path of [file, '/r/alice/kit/1.0.0.tgz', '/r/alice/kit/1.0.0/skills/review/SKILL.md']) {
        assert.deepEqual(await cacheOf(path), ['private, no-store', 'authorization'], `${path} (quarantined at ${flagged})`);
      }
      assert.equal((await patch(lift, { quarantined: null })).status, 200);
    }
    assert.equal((await patch('/api/v1/skits/alice/kit', { visibility: 'private' })).status, 200);
    assert.deepEqual(await cacheOf(file), ['private, max-age=31536000, immutable', 'authorization']);
  });

  it('unlisted SKITs are reachable by URL but never listed to outsiders', async () => {
    const alice = hub.user('alice');
    await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive, { visibility: 'unlisted' });
    assert.equal((await hub.app.request('/api/v1/skits/alice/kit')).status, 200);
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz')).status, 200);
    assert.equal((await (await hub.app.request('/api/v1/skits')).json()).total, 0);
    assert.deepEqual((await (await hub.app.request('/.well-known/agent-skills/index.json')).json()).skills, []);
    assert.equal((await (await hub.app.request('/api/v1/skits', { headers: alice.auth })).json()).total, 1);
  });

  it('enforces scopes: publishing needs registry:write in a namespace you belong to; devices neither read nor publish', async () => {
    const alice = hub.user('alice');
    const reader = hub.user('alice', ['registry:read']);
    const device = hub.user('alice', ['telemetry:write'], { kind: 'device' });
    const telemetryPat = hub.user('carol', ['telemetry:write']);
    const bob = hub.user('bob');
    assert.equal((await hub.publish({}, 'alice/kit', '1.0.0', kit.archive)).status, 401);
    assert.equal((await hub.publish(reader.auth, 'alice/kit', '1.0.0', kit.archive)).status, 403);
    assert.equal((await hub.publish(device.auth, 'alice/kit', '1.0.0', kit.archive)).status, 403);
    assert.equal((await hub.publish(bob.auth, 'alice/kit', '1.0.0', kit.archive)).status, 403);
    assert.equal(hub.storage.registry.getSkit('alice/kit'), undefined);
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
    for (const auth of [device.auth, telemetryPat.auth]) {
      for (const route of ['/api/v1/skits', '/api/v1/skits/alice/kit', '/r/alice/kit/1.0.0.tgz', '/.well-known/agent-skills/index.json']) {
        const res = await hub.app.request(route, { headers: auth });
        assert.equal(res.status, 403, route);
        assert.equal((await res.json()).error.code, 'SF_E_FORBIDDEN');
      }
    }
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: reader.auth })).status, 200);
    // changing settings needs the owner role
    const patch = (auth: Record<string, string>) =>
      hub.app.request('/api/v1/skits/alice/kit', { method: 'PATCH', body: JSON.stringify({ visibility: 'private' }), headers: { ...auth, 'content-type': 'application/json' } });
    assert.equal((await patch(bob.auth)).status, 403);
    assert.equal((await patch(reader.auth)).status, 403);
    assert.equal((await patch(alice.auth)).status, 200);
    assert.equal((await patch(bob.auth)).status, 404, 'once private, outsiders get the uniform 404');
  });

  it('organization members publish into the organization; outsiders cannot', async () => {
    const alice = hub.user('alice');
    const bob = hub.user('bob');
    const json = { 'content-type': 'application/json' };
    assert.equal((await hub.app.request('/api/v1/orgs', { method: 'POST', body: '{"login":"acme"}', headers: { ...alice.auth, ...json } })).status, 201);
    const acme = await packSkit(twoSkillTree('acme/kit'));
    try {
      assert.equal((await hub.publish(bob.auth, 'acme/kit', '1.0.0', acme.archive)).status, 403);
      await hub.app.request('/api/v1/orgs/acme/members/bob', { method: 'PUT', body: '{"role":"member"}', headers: { ...alice.auth, ...json } });
      assert.equal((await hub.publish(bob.auth, 'acme/kit', '1.0.0', acme.archive, { visibility: 'private' })).status, 201);
      assert.equal((await hub.app.request('/api/v1/skits/acme/kit', { headers: alice.auth })).status, 200);
      assert.equal((await hub.app.request('/api/v1/skits/acme/kit', { headers: hub.user('carol').auth })).status, 404);
    } finally {
      await acme.cleanup();
    }
  });

  it('revoking a token takes effect on the very next download', async () => {
    const alice = hub.user('alice');
    await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive, { visibility: 'private' });
    const created = await (await hub.app.request('/api/v1/tokens', { method: 'POST', body: '{"scopes":["registry:read"]}', headers: { ...alice.auth, 'content-type': 'application/json' } })).json();
    const auth = { authorization: `Bearer ${created.token}` };
    assert.equal((await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: auth })).status, 200);
    assert.equal((await hub.app.request(`/api/v1/tokens/${created.id}`, { method: 'DELETE', headers: alice.auth })).status, 200);
    const after = await hub.app.request('/r/alice/kit/1.0.0.tgz', { headers: auth });
    assert.equal(after.status, 401);
    assert.equal((await after.json()).error.code, 'SF_E_AUTH');
  });

  it('an upload over the size limit is a 413 with nothing stored, by Content-Length or while streaming', async () => {
    const alice = hub.user('alice');
    await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive);
    const before = await storedState(hub);
    const big = Buffer.alloc(200 * 1024, 7);
    const declared = await hub.publish(alice.auth, 'alice/kit', '2.0.0', big);
    assert.equal(declared.status, 413);
    assert.equal((await declared.json()).error.code, 'SF_E_LIMIT');
    // no Content-Length: a stream that keeps going past the cap
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= big.length) return controller.close();
        controller.enqueue(big.subarray(sent, sent + 16 * 1024));
        sent += 16 * 1024;
      },
    });
    const streamed = await hub.app.request('/api/v1/skits/alice/kit/releases/2.0.0', { method: 'PUT', body: stream, headers: alice.auth, duplex: 'half' } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.ok(sent < big.length, 'the hub stopped reading once the cap was passed');
    assert.deepEqual(await storedState(hub), before);
  });

  it('concurrent publishes cannot pass the quotas together, nor lose the settings of a first publish', async () => {
    const quota = await hubFixture({ limits: { maxReleasesPerSkit: 2 } });
    try {
      const alice = quota.user('alice');
      const answers = await Promise.all(['1.0.1', '1.0.2', '1.0.3', '1.0.4', '1.0.5', '1.0.6'].map((v) => quota.publish(alice.auth, 'alice/kit', v, kit.archive)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 413, 413, 413, 413]);
      assert.equal(quota.storage.registry.listReleases('alice/kit').length, 2);
      for (let round = 0; round < 5; round++) {
        const id = `alice/race${round}`;
        const packed = await packSkit(twoSkillTree(id));
        try {
          const [, priv] = await Promise.all([quota.publish(alice.auth, id, '1.0.0', packed.archive), quota.publish(alice.auth, id, '2.0.0', packed.archive, { visibility: 'private' })]);
          assert.equal(priv.status, 201);
          assert.equal((await priv.json()).skit.visibility, 'private');
          assert.equal(quota.storage.registry.getSkit(id)!.visibility, 'private');
        } finally {
          await packed.cleanup();
        }
      }
    } finally {
      await quota.cleanup();
    }
  });

  it('an organization member publishes but cannot change description or tags; a foreign or missing namespace gets one answer', async () => {
    const alice = hub.user('alice');
    const bob = hub.user('bob');
    const json = { 'content-type': 'application/json' };
    await hub.app.request('/api/v1/orgs', { method: 'POST', body: '{"login":"acme"}', headers: { ...alice.auth, ...json } });
    await hub.app.request('/api/v1/orgs/acme/members/bob', { method: 'PUT', body: '{"role":"member"}', headers: { ...alice.auth, ...json } });
    const acme = await packSkit(twoSkillTree('acme/kit'));
    try {
      assert.equal((await hub.publish(alice.auth, 'acme/kit', '1.0.0', acme.archive)).status, 201);
      const hijack = await hub.app.request('/api/v1/skits/acme/kit/releases/1.0.1?description=hijacked&tags=evil', { method: 'PUT', body: acme.archive as BodyInit, headers: bob.auth });
      assert.equal(hijack.status, 403);
      assert.match((await hijack.json()).error.message, /description, tags/);
      assert.equal(hub.storage.registry.getSkit('acme/kit')!.description, '');
      assert.equal((await hub.publish(bob.auth, 'acme/kit', '1.0.1', acme.archive)).status, 201, 'a plain release is fine');
    } finally {
      await acme.cleanup();
    }
    const foreign = await (await hub.publish(bob.auth, 'alice/kit', '1.0.0', kit.archive)).json();
    const missing = await (await hub.publish(bob.auth, 'nosuchorg/kit', '1.0.0', kit.archive)).json();
    assert.equal(foreign.error.code, 'SF_E_FORBIDDEN');
    assert.deepEqual([missing.error.code, missing.error.message.replace('nosuchorg', 'X')], [foreign.error.code, foreign.error.message.replace('alice', 'X')]);
  });

  it('a misspelt or repeated publish parameter, or an unknown PATCH field, is a 400 naming it: never a public release or a quarantine that did nothing', async () => {
    const alice = hub.user('alice');
    const typo = await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive, { visiblity: 'private' });
    assert.equal(typo.status, 400);
    const { error } = await typo.json();
    assert.equal(error.code, 'SF_E_USAGE');
    assert.match(error.message, /visiblity/);
    assert.match(error.hint, /visibility, description, tags/);
    const twice = await hub.app.request('/api/v1/skits/alice/kit/releases/1.0.0?visibility=private&visibility=public', { method: 'PUT', body: kit.archive as unknown as BodyInit, headers: { 'content-type': 'application/gzip', ...alice.auth } });
    assert.equal(twice.status, 400);
    assert.match((await twice.json()).error.message, /visibility given more than once/);
    assert.deepEqual(await storedState(hub), { blobs: [], skits: [], releases: [] });

    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive, { visibility: 'private' })).status, 201);
    const patch = (path: string, body: unknown) => hub.app.request(path, { method: 'PATCH', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...alice.auth } });
    const refused = [
      ['/api/v1/skits/alice/kit', { quarantine: { reason: 'leaked credentials' } }, /unknown field "quarantine"/, /"quarantined"/],
      ['/api/v1/skits/alice/kit/releases/1.0.0', { quarantine: { reason: 'leaked credentials' } }, /unknown field "quarantine"/, /"deprecated", "quarantined"/],
      ['/api/v1/skits/alice/kit', { deprecated: { message: 'use v2', replacment: 'alice/kit2' } }, /unknown field "deprecated.replacment"/, /deprecated takes "message", "replacement"/],
    ] as const;
    for (const [path, body, message, hint] of refused) {
      const res = await patch(path, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const answer = (await res.json()).error;
      assert.match(answer.message, message);
      assert.match(answer.hint, hint);
    }
    assert.equal(hub.storage.registry.getSkit('alice/kit')!.quarantined, undefined);
    assert.equal(hub.storage.registry.getSkit('alice/kit')!.deprecated, undefined);
    assert.equal(hub.storage.registry.getRelease('alice/kit', '1.0.0')!.quarantined, undefined);
    const inQuery = await hub.app.request('/api/v1/skits/alice/kit?visibility=public', { method: 'PATCH', headers: alice.auth });
    assert.equal(inQuery.status, 400);
    assert.match((await inQuery.json()).error.hint, /takes no query parameters: send "visibility", "description", "tags", "deprecated", "quarantined" in the JSON body/);
    assert.equal(hub.storage.registry.getSkit('alice/kit')!.visibility, 'private');
    assert.equal((await patch('/api/v1/skits/alice/kit', { quarantined: { reason: 'leaked credentials' } })).status, 200);
  });

  it('a SKIT id that breaks the rule is a 400 whose hint gives the login length an owner really has', async () => {
    const res = await hub.publish(hub.user('alice').auth, 'alice/Bad_Name', '1.0.0', kit.archive);
    assert.equal(res.status, 400);
    assert.match((await res.json()).error.hint, /owner is a login of 1-39 and the name 1-64/);
  });

  it('a version past 256 characters, and tags that are not strings, are 400s (never a storage error)', async () => {
    const alice = hub.user('alice');
    const long = await hub.publish(alice.auth, 'alice/kit', `1.0.0-${'a'.repeat(3000)}`, kit.archive);
    assert.equal(long.status, 400);
    assert.match((await long.json()).error.message, /3006 characters long; the limit is 256/);
    assert.equal((await hub.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
    const patch = await hub.app.request('/api/v1/skits/alice/kit', { method: 'PATCH', body: JSON.stringify({ tags: [{ toString: 1 }] }), headers: { ...alice.auth, 'content-type': 'application/json' } });
    assert.equal(patch.status, 400);
    assert.equal((await patch.json()).error.code, 'SF_E_USAGE');
  });

  it('enforces per-file, release-count and owner-storage quotas', async () => {
    const small = await hubFixture({ limits: { maxFileBytes: 100, maxReleasesPerSkit: 1 } });
    try {
      const alice = small.user('alice');
      const res = await small.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive);
      assert.equal(res.status, 422);
      const { error } = await res.json();
      assert.ok(error.data.diagnostics.some((d: { code: string }) => d.code === 'SKIT_QUOTA_FILE_BYTES'));
    } finally {
      await small.cleanup();
    }
    const counted = await hubFixture({ limits: { maxReleasesPerSkit: 1 } });
    try {
      const alice = counted.user('alice');
      assert.equal((await counted.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
      const second = await counted.publish(alice.auth, 'alice/kit', '1.0.1', kit.archive);
      assert.equal(second.status, 413);
      assert.equal((await second.json()).error.data.limit, 'maxReleasesPerSkit');
    } finally {
      await counted.cleanup();
    }
    const stored = await hubFixture({ limits: { maxOwnerStorageBytes: 2000 } });
    try {
      const alice = stored.user('alice');
      assert.equal((await stored.publish(alice.auth, 'alice/kit', '1.0.0', kit.archive)).status, 201);
      const second = await stored.publish(alice.auth, 'alice/kit', '1.0.1', kit.archive);
      assert.equal(second.status, 413);
      assert.equal((await second.json()).error.data.limit, 'maxOwnerStorageBytes');
    } finally {
      await stored.cleanup();
    }
  });
});
