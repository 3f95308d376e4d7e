import assert from 'node:assert/strict';
import { decodeOtlpRequest, encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { issueToken } from '../auth/tokens.js';
import type { Scope } from '../storage/ports.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

const DAY = 24 * 60 * 60 * 1000;

describe('hub telemetry account settings, repositories and retention', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  const put = (path: string, body: object, auth: Record<string, string>) =>
    f.app.request(path, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...auth } });

  it('keeps content only for accounts that opted in, and never stores dropped content in the raw batch', async () => {
    f = await telemetryFixture();
    const off = f.user('off');
    const on = f.user('on');
    assert.equal((await put(`/api/v1/telemetry/accounts/on/settings`, { contentCollection: true }, on.manage)).status, 200);
    const record = () => {
      const r = skillRecord('agent.skill.selected', { 'gen_ai.prompt': 'secret prompt text' });
      r.body = 'the prompt body';
      return r;
    };
    for (const u of [off, on]) assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest([record()]), 'protobuf'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const events = (id: string) => [...f.telemetry.reader().allEvents()].filter((e) => e.accountId === id);
    assert.equal(events(off.id)[0].attributes['gen_ai.prompt'], undefined);
    assert.equal(events(on.id)[0].attributes['gen_ai.prompt'], 'secret prompt text');
    assert.deepEqual([events(off.id)[0].body, events(on.id)[0].body], [undefined, 'the prompt body']);
    for (const b of f.storage.telemetry.rawBatches.listByReceipt()) {
      const raw = (await f.storage.telemetry.rawBlobs.get(b.sha256))!;
      const stored = JSON.stringify(await decodeOtlpRequest('logs', raw, b.encoding));
      assert.equal(stored.includes('secret prompt text'), b.accountId === on.id, `raw batch of ${b.accountId}`);
      assert.equal(b.verbatim, b.accountId === on.id, 'only an unmodified batch is stored verbatim');
    }
  });

  it('lets only admins set the retention tier; the account sets content collection', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const admin = f.user('root', { admin: true });
    assert.equal((await put('/api/v1/telemetry/accounts/alice/settings', { retentionTier: 'paid' }, u.manage)).status, 403);
    const res = await put('/api/v1/telemetry/accounts/alice/settings', { retentionTier: 'paid' }, admin.pat);
    assert.equal(res.status, 200);
    assert.deepEqual([((await res.json()) as { retentionDays: number }).retentionDays], [365]);
    assert.equal((await put('/api/v1/telemetry/accounts/alice/settings', { contentCollection: 'yes' }, u.manage)).status, 400);
    assert.equal((await put('/api/v1/telemetry/accounts/alice/settings', { contentCollection: true }, u.device)).status, 403);
    const s = await f.getJson<{ contentCollection: boolean; retentionTier: string }>('/api/v1/telemetry/accounts/alice/settings', u.pat);
    assert.deepEqual([s.contentCollection, s.retentionTier], [false, 'paid']);
  });

  it('lets only an unrestricted or admin PAT change content collection and repository links', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const admin = f.user('root', { admin: true });
    const id = await f.linkRepository(u, 'alice/app', ['rfp_one_fingerprint']);
    const restricted: Record<string, Scope[]> = { none: [], read: ['registry:read'], publish: ['registry:read', 'registry:write'], collector: ['telemetry:write'] };
    for (const [name, scopes] of Object.entries(restricted)) {
      const auth = { authorization: `Bearer ${issueToken(f.storage.tokens, { userId: u.id, kind: 'pat', name, scopes }).secret}` };
      const writes = {
        settings: await put('/api/v1/telemetry/accounts/alice/settings', { contentCollection: true }, auth),
        link: await f.app.request('/api/v1/telemetry/accounts/alice/repositories', { method: 'POST', body: JSON.stringify({ name: 'x', fingerprints: ['rfp_other_fingerprint'] }), headers: { 'content-type': 'application/json', ...auth } }),
        rename: await put(`/api/v1/telemetry/accounts/alice/repositories/${id}`, { fingerprints: ['rfp_other_fingerprint'] }, auth),
        unlink: await f.app.request(`/api/v1/telemetry/accounts/alice/repositories/${id}`, { method: 'DELETE', headers: auth }),
      };
      for (const [what, res] of Object.entries(writes)) {
        assert.equal(res.status, 403, `${what} with a ${name} PAT`);
        const body = (await res.json()) as { error: { code: string; hint?: string } };
        assert.equal(body.error.code, 'SF_E_FORBIDDEN');
        assert.match(body.error.hint ?? '', /scopes/);
        assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope/);
      }
      // reading stays open to any PAT of the account (there is no telemetry:read scope)
      assert.equal((await f.app.request('/api/v1/telemetry/accounts/alice/settings', { headers: auth })).status, 200);
    }
    const s = await f.getJson<{ contentCollection: boolean }>('/api/v1/telemetry/accounts/alice/settings', u.pat);
    assert.equal(s.contentCollection, false);
    assert.deepEqual((await f.getJson<{ repositories: { id: string; fingerprints: string[] }[] }>('/api/v1/telemetry/accounts/alice/repositories', u.pat)).repositories.map((r) => [r.id, r.fingerprints]), [[id, ['rfp_one_fingerprint']]]);
    // a restricted PAT of another account still sees no account at all
    const bob = f.user('bob');
    assert.equal((await put('/api/v1/telemetry/accounts/alice/settings', { contentCollection: true }, bob.pat)).status, 404);
    assert.equal((await put('/api/v1/telemetry/accounts/alice/settings', { contentCollection: true }, u.manage)).status, 200);
    assert.equal((await put('/api/v1/telemetry/accounts/alice/settings', { contentCollection: false }, admin.pat)).status, 200);
  });

  it('an unknown settings or repository field is a 400 naming it and the fields the route takes, and changes nothing', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const res = await put('/api/v1/telemetry/accounts/alice/settings', { contentcollection: true }, u.manage);
    assert.equal(res.status, 400);
    const { error } = (await res.json()) as { error: { code: string; message: string; hint: string } };
    assert.equal(error.code, 'SF_E_USAGE');
    assert.match(error.message, /unknown field "contentcollection"/);
    assert.match(error.hint, /"contentCollection", "retentionTier"/);
    assert.equal((await f.getJson<{ contentCollection: boolean }>('/api/v1/telemetry/accounts/alice/settings', u.pat)).contentCollection, false);
    const link = await f.app.request('/api/v1/telemetry/accounts/alice/repositories', { method: 'POST', body: JSON.stringify({ name: 'alice/app', fingerprint: ['rfp_one_fingerprint'] }), headers: { 'content-type': 'application/json', ...u.manage } });
    assert.equal(link.status, 400);
    assert.match(((await link.json()) as { error: { message: string } }).error.message, /unknown field "fingerprint"/);
    assert.deepEqual(await f.getJson('/api/v1/telemetry/accounts/alice/repositories', u.pat), { repositories: [] });
  });

  it('links, renames and unlinks repositories; a fingerprint belongs to one repository of an account', async () => {
    f = await telemetryFixture();
    const u = f.user('alice');
    const id = await f.linkRepository(u, 'alice/app', ['rfp_one_fingerprint', 'wfp_worktree_fp1']);
    const dup = await f.app.request('/api/v1/telemetry/accounts/alice/repositories', { method: 'POST', body: JSON.stringify({ name: 'x', fingerprints: ['rfp_one_fingerprint'] }), headers: { 'content-type': 'application/json', ...u.manage } });
    assert.equal(dup.status, 409);
    assert.equal((await put(`/api/v1/telemetry/accounts/alice/repositories/${id}`, { name: 'alice/app2', fingerprints: ['rfp_two_fingerprint'] }, u.manage)).status, 200);
    assert.equal(f.storage.telemetry.repositories.byFingerprint(u.id, 'rfp_one_fingerprint'), undefined);
    assert.equal(f.storage.telemetry.repositories.byFingerprint(u.id, 'rfp_two_fingerprint'), id);
    const bob = f.user('bob');
    assert.equal(await f.linkRepository(bob, 'bob/app', ['rfp_one_fingerprint']).then(() => 'linked'), 'linked', 'fingerprints are per account');
    assert.equal((await f.app.request(`/api/v1/telemetry/accounts/alice/repositories/${id}`, { method: 'DELETE', headers: u.manage })).status, 204);
    assert.deepEqual(await f.getJson('/api/v1/telemetry/accounts/alice/repositories', u.pat), { repositories: [] });
  });

  it('sweeps raw batches past the retention of the account tier (90 days free, 365 paid), keeping projections', async () => {
    let now = Date.UTC(2026, 0, 1);
    f = await telemetryFixture({ now: () => now });
    const free = f.user('free');
    const paid = f.user('paid');
    const admin = f.user('root', { admin: true });
    assert.equal((await put('/api/v1/telemetry/accounts/paid/settings', { retentionTier: 'paid' }, admin.pat)).status, 200);
    for (const u of [free, paid]) assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', {}, now - DAY)]), 'protobuf'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const batches = () => [...f.storage.telemetry.rawBatches.listByReceipt()].map((b) => b.accountId).sort();
    now += 89 * DAY;
    assert.deepEqual(await f.telemetry.sweep(), { batches: 0, blobs: 0, orphanBlobs: 0, tempFiles: 0 });
    now += 2 * DAY;
    const swept = await f.app.request('/api/v1/telemetry/admin/sweep', { method: 'POST', headers: admin.pat });
    assert.deepEqual(await swept.json(), { batches: 1, blobs: 1, orphanBlobs: 0, tempFiles: 0, registry: { orphanBlobs: 0, tempFiles: 0 } });
    assert.deepEqual(batches(), [paid.id]);
    now += 300 * DAY;
    assert.deepEqual(await f.telemetry.sweep(), { batches: 1, blobs: 1, orphanBlobs: 0, tempFiles: 0 });
    assert.deepEqual(batches(), []);
    assert.equal([...f.telemetry.reader().allEvents()].length, 2, 'normalized facts outlive the raw batches');
    assert.equal((await f.app.request('/api/v1/telemetry/admin/sweep', { method: 'POST', headers: free.pat })).status, 403);
  });

  it('marks the admin rebuild and sweep answers private and unsniffable, like every other telemetry answer', async () => {
    f = await telemetryFixture();
    const admin = f.user('root', { admin: true });
    const other = f.user('other');
    for (const path of ['/api/v1/telemetry/admin/rebuild', '/api/v1/telemetry/admin/sweep']) {
      for (const [auth, status] of [[admin.pat, 200], [other.pat, 403]] as const) {
        const res = await f.app.request(path, { method: 'POST', headers: auth });
        assert.equal(res.status, status, path);
        assert.deepEqual([res.headers.get('cache-control'), res.headers.get('x-content-type-options')], ['private, no-store', 'nosniff'], `${path} (${status})`);
      }
    }
  });

  it('asks an anonymous caller of the admin routes to authenticate (401 with the challenge); a non-admin PAT stays 403', async () => {
    f = await telemetryFixture();
    const other = f.user('other');
    for (const path of ['/api/v1/telemetry/admin/rebuild', '/api/v1/telemetry/admin/sweep']) {
      const anonymous = await f.app.request(path, { method: 'POST' });
      assert.equal(anonymous.status, 401, path);
      assert.equal(((await anonymous.json()) as { error: { code: string } }).error.code, 'SF_E_AUTH');
      assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="forge-hub"');
      const forbidden = await f.app.request(path, { method: 'POST', headers: other.pat });
      assert.equal(forbidden.status, 403, path);
      assert.match(forbidden.headers.get('www-authenticate') ?? '', /insufficient_scope", scope="admin"/);
    }
  });
});
