import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { TimelinePage } from '../query/timeline.js';
import type { UsageReport } from '../query/usage.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import { packSkit, twoSkillTree } from '../../test-support/skit-archive.js';

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

/** The query routes answer exactly the question asked, or say what was wrong with it. */
describe('hub telemetry query parameters', () => {
  let f: TelemetryFixture;
  let alice: TelemetryUser;
  let repo: string;
  beforeEach(async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    alice = f.user('alice');
    repo = await f.linkRepository(alice, 'alice/app', ['rfp_alice_app_repo']);
  });
  afterEach(async () => f.cleanup());

  const get = async (path: string, auth: Record<string, string> = {}) => {
    const res = await f.app.request(path, { headers: auth });
    return { res, body: (await res.json()) as { error?: { code: string; message: string; hint?: string } } & Record<string, unknown> };
  };
  const refused = async (path: string, auth: Record<string, string>, status: number, message: RegExp) => {
    const { res, body } = await get(path, auth);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(body)}`);
    assert.match(body.error?.message ?? '', message, path);
    assert.ok(body.error?.hint, `${path} has a hint`);
    return res;
  };

  it('refuses a parameter given twice, and one the route does not take, naming it', async () => {
    const timeline = `/api/v1/telemetry/repositories/${repo}/timeline`;
    await refused(`${timeline}?limit=10&limit=abc`, alice.pat, 400, /limit given more than once/);
    await refused(`${timeline}?from=0&from=abc`, alice.pat, 400, /from given more than once/);
    await refused(`${timeline}?agent=codex`, alice.pat, 400, /unknown query parameter agent$/);
    await refused(`${timeline}?session=sess_x&skill=owner/pkg:plain`, alice.pat, 400, /unknown query parameters session, skill$/);
    await refused(`${timeline}?${'x'.repeat(5000)}=1`, alice.pat, 400, /unknown query parameter x{40}\.\.\.$/);
    await refused('/api/v1/telemetry/health?from=0', alice.pat, 400, /unknown query parameter from/);
    await refused('/api/v1/telemetry/skits/owner/pkg/skills/plain/evidence?limit=5', alice.pat, 400, /unknown query parameter limit/);
    await refused('/api/v1/telemetry/skits/owner/pkg/usage?cursor=x', alice.pat, 400, /unknown query parameter cursor/);
    assert.equal((await get(`${timeline}?from=0&to=${T0}&limit=5`, alice.pat)).res.status, 200);
  });

  it('validates the usage scope, refuses account= with scope=all, and asks an anonymous caller to authenticate', async () => {
    const admin = f.user('root', { admin: true });
    const bob = f.user('bob');
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_b', 'agent.skill.id': 'owner/pkg:plain' }, T0)]), 'protobuf'), { auth: bob.device })).status, 200);
    await f.telemetry.drain();
    const usage = '/api/v1/telemetry/skits/owner/pkg/usage?from=0';
    for (const scope of ['All', 'bogus', '']) await refused(`${usage}&scope=${scope}`, admin.pat, 400, /is not a usage scope/);
    await refused(`${usage}&account=bob&scope=all`, admin.pat, 400, /account and scope=all/);
    await refused(`${usage}&scope=all`, alice.pat, 403, /needs an admin token/);
    const anon = await refused(`${usage}&scope=all`, {}, 401, /authentication required/);
    assert.equal(anon.headers.get('www-authenticate'), 'Bearer realm="forge-hub"');
    const counts = async (q: string) => {
      const body = (await get(`${usage}&${q}`, admin.pat)).body as unknown as UsageReport;
      return [body.scope, body.totals.activations];
    };
    assert.deepEqual(await counts('scope=all'), ['all', 1]);
    assert.deepEqual(await counts('account=bob'), ['account', 1]);
    assert.deepEqual(await counts('account=bob&scope=account'), ['account', 1]);
    assert.deepEqual(await counts('scope=account'), ['account', 0]);
  });

  it('takes RFC 3339 times only (hour 00-23, a leap second), and keeps a defaulted window within 1970-9999', async () => {
    const timeline = `/api/v1/telemetry/repositories/${repo}/timeline`;
    await refused(`${timeline}?from=2026-08-09T24:00:00Z`, alice.pat, 400, /is not a time between 1970 and 9999/);
    const leap = (await get(`${timeline}?from=2016-12-31T23:59:60Z`, alice.pat)).body as unknown as TimelinePage;
    assert.equal(leap.window.from, '2016-12-31T23:59:59.999Z');
    // (a midnight `to` given as a time is exclusive on usage: `to=0` would leave no day)
    const usage = (await get('/api/v1/telemetry/skits/owner/pkg/usage?to=1970-01-01', alice.pat)).body as unknown as UsageReport;
    assert.deepEqual(usage.window, { from: '1970-01-01', to: '1970-01-01' });
    const page = (await get(`${timeline}?to=1000`, alice.pat)).body as unknown as TimelinePage;
    assert.deepEqual(page.window, { from: '1970-01-01T00:00:00.000Z', to: '1970-01-01T00:00:01.000Z' });
  });
});

describe('hub telemetry usage: the contained skills listed', () => {
  it('are the skills of the registry\'s latest release (semver, stable preferred), not of the most recently published one', async () => {
    const f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const kit = await packSkit(twoSkillTree('alice/pub'));
    const single = await packSkit({ 'SKILL.md': '---\nname: hello\ndescription: Says hello. Use when greeting.\n---\n\nSay hello.\n' }, 'single');
    try {
      const alice = f.user('alice', { scopes: ['registry:read', 'registry:write'] });
      const publish = (version: string, archive: Uint8Array) =>
        f.app.request(`/api/v1/skits/alice/pub/releases/${version}`, { method: 'PUT', body: archive as unknown as BodyInit, headers: { 'content-type': 'application/gzip', ...alice.pat } });
      assert.equal((await publish('1.0.0', kit.archive)).status, 201);
      // a maintenance release of an older line and a prerelease, both published after 1.0.0
      assert.equal((await publish('0.9.1', single.archive)).status, 201);
      assert.equal((await publish('2.0.0-beta.1', single.archive)).status, 201);
      assert.equal(f.storage.registry.latestRelease('alice/pub')?.version, '1.0.0');
      const usage = await f.getJson<UsageReport>('/api/v1/telemetry/skits/alice/pub/usage', alice.pat);
      assert.deepEqual(usage.skills.map((s) => [s.skillId, s.contained]), [['alice/pub:review', true], ['alice/pub:summarize', true]]);
    } finally {
      await kit.cleanup();
      await single.cleanup();
      await f.cleanup();
    }
  });
});

describe('hub telemetry responses are private to their account', () => {
  it('marks every query and settings answer, errors included, as not to be cached or sniffed', async () => {
    const f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    try {
      const u = f.user('alice');
      const repo = await f.linkRepository(u, 'alice/app', ['rfp_alice_app_repo']);
      for (const path of [`/api/v1/telemetry/repositories/${repo}/timeline`, '/api/v1/telemetry/repositories/repo_nosuch/timeline', '/api/v1/telemetry/skits/owner/pkg/usage', '/api/v1/telemetry/skits/owner/pkg/skills/plain/usage', '/api/v1/telemetry/skits/owner/pkg/skills/plain/evidence', '/api/v1/telemetry/health', '/api/v1/telemetry/events/evt_nosuch', '/api/v1/telemetry/accounts/alice/settings', '/api/v1/telemetry/accounts/alice/repositories', '/api/v1/telemetry/accounts/bob/settings']) {
        const res = await f.app.request(path, { headers: u.pat });
        await res.arrayBuffer();
        assert.deepEqual([res.headers.get('cache-control'), res.headers.get('x-content-type-options')], ['private, no-store', 'nosniff'], `${path} (${res.status})`);
      }
    } finally {
      await f.cleanup();
    }
  });
});
