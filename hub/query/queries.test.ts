import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { ReleaseRecord } from '../storage/ports.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import type { HealthReport } from './health.js';
import { encodeCursor, type TimelinePage } from './timeline.js';
import type { UsageReport } from './usage.js';

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

function release(skills: string[]): ReleaseRecord {
  return {
    skitId: 'owner/code-quality', version: '2.3.0', bundleHash: 'sha256:x', archiveSha256: 'a'.repeat(64), archiveSize: 1, storedBytes: 1, files: [],
    publishedAt: new Date(T0).toISOString(), publishedBy: 'u',
    skills: skills.map((name) => ({ name, id: `owner/code-quality:${name}`, path: `skills/${name}`, hash: 'sha256:y', defaultEnabled: true, description: '', archiveSha256: 'b'.repeat(64), archiveSize: 1, files: [] })),
  };
}

describe('hub telemetry queries', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it('pages the repository timeline newest first with a cursor, each page a consistent slice', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    const repo = await f.linkRepository(u, 'alice/app', ['rfp_alice_app_repo']);
    const records = Array.from({ length: 25 }, (_, i) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': `act_${String(i).padStart(2, '0')}`, 'agent.skill.id': 'owner/code-quality:testing' }, T0 + i * 1000));
    await f.post('logs', await encodeOtlpRequest(logsRequest(records, { 'service.name': 'codex', 'forge.repository.fingerprint': 'rfp_alice_app_repo' }), 'protobuf'), { auth: u.device });
    await f.telemetry.drain();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page: TimelinePage = await f.getJson(`/api/v1/telemetry/repositories/${repo}/timeline?from=0&limit=10${cursor ? `&cursor=${cursor}` : ''}`, u.pat);
      seen.push(...page.sessions.flatMap((s) => s.activations.map((a) => a.activationId)));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 25);
    const first: TimelinePage = await f.getJson(`/api/v1/telemetry/repositories/${repo}/timeline?from=0&limit=10`, u.pat);
    assert.deepEqual(first.sessions[0].activations.map((a) => a.activationId), Array.from({ length: 10 }, (_, i) => `act_${15 + i}`));
    assert.deepEqual(first.gaps.map((g) => g.kind), ['load_incomplete']);
  });

  it('binds a timeline cursor to its query: never an event outside the window the response names', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    const repo = await f.linkRepository(u, 'alice/app', ['rfp_alice_app_repo']);
    const records = Array.from({ length: 10 }, (_, i) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': `act_${i}`, 'agent.skill.id': 'owner/pkg:plain' }, T0 + i * 60_000));
    await f.post('logs', await encodeOtlpRequest(logsRequest(records, { 'service.name': 'codex', 'forge.repository.fingerprint': 'rfp_alice_app_repo' }), 'protobuf'), { auth: u.device });
    await f.telemetry.drain();
    const to = T0 + 2 * 60_000;
    const wide: TimelinePage = await f.getJson(`/api/v1/telemetry/repositories/${repo}/timeline?from=0&limit=2`, u.pat);
    // the cursor of one query, sent with another window (or to another repository), is refused
    const other = await f.linkRepository(u, 'alice/other', ['rfp_alice_other_repo']);
    for (const path of [`${repo}/timeline?from=0&to=${to}&`, `${repo}/timeline?from=1&`, `${repo}/timeline?`, `${other}/timeline?from=0&`]) {
      const res = await f.app.request(`/api/v1/telemetry/repositories/${path}cursor=${wide.nextCursor}`, { headers: u.pat });
      const body = (await res.json()) as { error: { code: string; message: string; hint?: string } };
      assert.deepEqual([res.status, body.error.code], [400, 'SF_E_USAGE'], path);
      assert.match(body.error.message, /another query/);
      assert.match(body.error.hint ?? '', /same repository, from and to/);
    }
    // the same query pages on; `from=0` and `from=1970-01-01T00:00:00Z` are the same window
    const next = await f.app.request(`/api/v1/telemetry/repositories/${repo}/timeline?from=1970-01-01T00:00:00Z&limit=2&cursor=${wide.nextCursor}`, { headers: u.pat });
    assert.deepEqual(((await next.json()) as TimelinePage).sessions.flatMap((s) => s.activations.map((a) => a.activationId)), ['act_6', 'act_7']);
    // a position past `to` (only a hand-made cursor can hold one) continues from `to`, not past it
    const forged = encodeCursor({ accountId: u.id, repositoryId: repo, asked: { from: 0, to } }, { timeMs: T0 + 100 * 60_000, eventId: '~' });
    const clamped: TimelinePage = await f.getJson(`/api/v1/telemetry/repositories/${repo}/timeline?from=0&to=${to}&cursor=${forged}`, u.pat);
    assert.deepEqual(clamped.sessions.flatMap((s) => s.activations.map((a) => a.activationId)).sort(), ['act_0', 'act_1', 'act_2']);
  });

  it('reports SKIT usage with contained-skill drill-down, never spreading a SKIT-level activation over the children', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    f.storage.registry.createRelease(release(['maintainability', 'testing', 'docs']), () => ({ id: 'owner/code-quality', owner: 'owner', name: 'code-quality', visibility: 'public', description: '', tags: [], createdAt: '' }));
    const records = [
      skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_m', 'agent.skill.id': 'owner/code-quality:maintainability', 'agent.skill.trigger.type': 'implicit', 'artifact.version': '2.3.0' }, T0),
      skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'act_m' }, T0 + 50),
      // a host that only knows which SKIT it activated, not which contained skill
      skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_bundle', 'agent.skill.package.id': 'owner/code-quality', 'agent.skill.trigger.type': 'explicit', 'artifact.version': '2.3.0' }, T0 + 1000),
      skillRecord('agent.skill.load_failed', { 'agent.skill.activation.id': 'act_bundle', 'error.type': 'timeout' }, T0 + 1100),
    ];
    await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: u.device });
    await f.telemetry.drain();
    const usage: UsageReport = await f.getJson(`/api/v1/telemetry/skits/owner/code-quality/usage?from=2026-08-09`, u.pat);
    assert.deepEqual([usage.totals.activations, usage.totals.loaded, usage.totals.loadFailed], [2, 1, 1]);
    assert.deepEqual([usage.bundleLevel.activations, usage.bundleLevel.explicit, usage.bundleLevel.loadFailed], [1, 1, 1]);
    assert.deepEqual(usage.skills.map((s) => [s.skillId, s.activations, s.contained]), [
      ['owner/code-quality:docs', 0, true],
      ['owner/code-quality:maintainability', 1, true],
      ['owner/code-quality:testing', 0, true],
    ]);
    const skill: UsageReport = await f.getJson(`/api/v1/telemetry/skits/owner/code-quality/skills/maintainability/usage?from=2026-08-09`, u.pat);
    assert.deepEqual([skill.skillId, skill.totals.activations, skill.totals.implicit, skill.bundleLevel.activations], ['owner/code-quality:maintainability', 1, 1, 0]);
    const mallory = f.user('mallory');
    const theirs: UsageReport = await f.getJson(`/api/v1/telemetry/skits/owner/code-quality/usage?from=2026-08-09`, mallory.pat);
    // a time no JS Date can hold is the caller's mistake (400), never a RangeError (500)
    for (const q of ['to=99999999999999999999', 'from=0&to=9000000000000000', 'from=-5', 'from=2026-02-30T00:00:00Z']) {
      const res = await f.app.request(`/api/v1/telemetry/skits/owner/code-quality/usage?${q}`, { headers: u.pat });
      assert.equal(res.status, 400, q);
    }
    assert.equal(theirs.totals.activations, 0, 'usage is per account');
    assert.equal((await f.app.request('/api/v1/telemetry/skits/owner/code-quality/usage?scope=all', { headers: mallory.pat })).status, 403);
    const admin = f.user('root', { admin: true });
    const all: UsageReport = await f.getJson(`/api/v1/telemetry/skits/owner/code-quality/usage?scope=all&from=2026-08-09`, admin.pat);
    assert.deepEqual([all.scope, all.totals.activations], ['all', 2]);
  });

  it('reports collector/adapter health: heartbeats, staleness and what was dropped', async () => {
    let now = T0;
    f = await telemetryFixture({ now: () => now, staleAfterMs: 3_600_000 });
    const u = f.user('alice');
    const body = (service: string) => encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'gen_ai.prompt': 'x' }, T0)], { 'service.name': service, 'agent.adapter.name': 'sf-adapter', 'agent.adapter.version': '0.1.0' }), 'protobuf');
    await f.post('logs', await body('claude-code'), { auth: u.device });
    now += 2 * 3_600_000;
    await f.post('logs', await body('codex'), { auth: u.device });
    const health: HealthReport = await f.getJson('/api/v1/telemetry/health', u.pat);
    assert.deepEqual(health.processes.map((p) => [p.serviceName, p.stale, p.records, p.droppedContent, p.adapterVersion]), [['codex', false, 1, 1, '0.1.0'], ['claude-code', true, 1, 1, '0.1.0']]);
    assert.deepEqual([health.summary.devices, health.summary.processes, health.summary.stale, health.summary.droppedContent, health.queued], [1, 2, 1, 2, 2]);
  });

  it('a date-only `to` covers that whole day on every endpoint (timeline, evidence and usage agree)', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    const repo = await f.linkRepository(u, 'alice/app', ['rfp_alice_app_repo']);
    const records = [skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_day', 'agent.skill.id': 'owner/code-quality:testing', 'agent.skill.trigger.type': 'implicit' }, T0)];
    await f.post('logs', await encodeOtlpRequest(logsRequest(records, { 'service.name': 'codex', 'forge.repository.fingerprint': 'rfp_alice_app_repo' }), 'protobuf'), { auth: u.device });
    await f.telemetry.drain();
    const counts = async (q: string) => [
      ((await f.getJson(`/api/v1/telemetry/repositories/${repo}/timeline?${q}`, u.pat)) as TimelinePage).sessions.length,
      ((await f.getJson(`/api/v1/telemetry/skits/owner/code-quality/skills/testing/evidence?${q}`, u.pat)) as { activations: unknown[] }).activations.length,
      ((await f.getJson(`/api/v1/telemetry/skits/owner/code-quality/usage?${q}`, u.pat)) as UsageReport).totals.activations,
    ];
    assert.deepEqual(await counts('from=2026-08-09&to=2026-08-09'), [1, 1, 1]);
    assert.deepEqual(await counts('from=2026-08-08&to=2026-08-08'), [0, 0, 0]);
    const page: TimelinePage = await f.getJson(`/api/v1/telemetry/repositories/${repo}/timeline?from=2026-08-09&to=2026-08-09`, u.pat);
    assert.deepEqual(page.window, { from: '2026-08-09T00:00:00.000Z', to: '2026-08-09T23:59:59.999Z' });
  });
});
