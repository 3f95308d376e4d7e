import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { createHubApp } from '../app.js';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import { TelemetryService } from '../telemetry/service.js';
import { logsRequest, skillRecord, testSpan, tracesRequest } from '../test-support/otlp-builders.js';
import { deliverGoldenFixtures, GOLDEN_RECEIPT_MS } from '../test-support/otlp-fixtures.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import { NORMALIZER_VERSION } from './version.js';

const DAY = 86_400_000;
const WINDOW = 'from=2026-01-01T00:00:00Z&to=2027-12-31T00:00:00Z';
const withoutVersion = <T>(s: T): T => JSON.parse(JSON.stringify(s, (k, v) => (k === 'normalizerVersion' ? undefined : v))) as T;
/** rows in a stable order (that does not depend on their normalizer version) */
const sorted = <T>(rows: Iterable<T>): T[] =>
  [...rows].map((r) => [JSON.stringify(withoutVersion(r)), r] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);

/**
 * Everything the query API answers the account about its telemetry (usage and evidence of every
 * SKIT and skill it used, the timeline of every linked repository, every event by id, health),
 * plus the live generation's rows.
 */
async function answers(f: TelemetryFixture, user: TelemetryUser, repos: Iterable<string>, app = f.app, telemetry = f.telemetry) {
  const get = async (path: string) => {
    const res = await app.request(path, { headers: user.pat });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const reader = telemetry.reader();
  const events = [...reader.allEvents()].filter((e) => e.accountId === user.id);
  const rollups = [...reader.allRollups()].filter((r) => r.accountId === user.id);
  const out: Record<string, unknown> = {
    events: sorted(events),
    activations: sorted([...reader.allActivations()].filter((a) => a.accountId === user.id)),
    rollups: sorted(rollups),
    // staleness moves with the clock, not with the projections
    health: JSON.parse(JSON.stringify(await get('/api/v1/telemetry/health'), (k, v) => (k === 'stale' ? undefined : v))),
  };
  for (const pkg of new Set(rollups.map((r) => r.packageId).filter((p) => p.includes('/')))) {
    out[`usage ${pkg}`] = await get(`/api/v1/telemetry/skits/${pkg}/usage?from=2026-01-01&to=2027-12-31`);
  }
  for (const skill of new Set(rollups.map((r) => r.skillId).filter((s) => /^[^/]+\/[^:]+:.+$/.test(s)))) {
    const [pkg, name] = skill.split(':');
    out[`usage ${skill}`] = await get(`/api/v1/telemetry/skits/${pkg}/skills/${name}/usage?from=2026-01-01&to=2027-12-31`);
    out[`evidence ${skill}`] = await get(`/api/v1/telemetry/skits/${pkg}/skills/${name}/evidence?${WINDOW}`);
  }
  for (const repo of repos) out[`timeline ${repo}`] = await get(`/api/v1/telemetry/repositories/${repo}/timeline?${WINDOW}&limit=5000`);
  for (const e of events) out[`event ${e.eventId} ${e.deviceId}`] = await get(`/api/v1/telemetry/events/${e.eventId}?device=${e.deviceId}`);
  return out;
}

/**
 * A retention sweep deletes raw batches; the projections they produced stay. A rebuild used to
 * rebuild from the retained raw batches only, so the first rebuild after a sweep (an admin's, or
 * the one a hub starts by itself after a normalizer upgrade) erased swept history: usage,
 * evidence, interventions, uninstalls, incidents. A swept batch now leaves its normalized events
 * behind, and a rebuild applies them in its place.
 */
describe('hub rebuild after a retention sweep (hub/normalize/rebuild, hub/ingest/retention)', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  it('answers the same after a rebuild for swept history: every golden fixture swept, then rebuilt twice', async function () {
    this.timeout(60_000);
    let now = GOLDEN_RECEIPT_MS;
    f = await telemetryFixture({ now: () => now });
    const user = f.user('swept');
    const repos = [...(await deliverGoldenFixtures(f, user)).keys()];
    const raw = [...f.storage.telemetry.rawBatches.listByReceipt()];
    const live = await answers(f, user, repos);
    assert.ok((live.events as unknown[]).length > 50);
    const asked = Object.entries(live).filter(([k]) => k.includes(' ')) as [string, { status: number }][];
    assert.ok(asked.every(([, a]) => a.status === 200));
    assert.ok(['usage', 'evidence', 'timeline', 'event'].every((kind) => asked.some(([k]) => k.startsWith(`${kind} `))));

    now += 100 * DAY; // past the free tier's 90 days
    const swept = await f.telemetry.sweep();
    assert.equal(swept.batches, raw.length);
    assert.deepEqual([...f.storage.telemetry.rawBatches.listByReceipt()], []);
    const expired = [...f.storage.telemetry.expired.list()];
    assert.deepEqual(expired.map((b) => b.id).sort(), raw.filter((r) => r.signal !== 'metrics').map((r) => r.id).sort(), 'every batch with events leaves them behind');
    assert.ok(expired.every((b) => b.sweptAt === new Date(now).toISOString() && b.events > 0));
    assert.deepStrictEqual(await answers(f, user, repos), live, 'the sweep itself changes no answer');

    const rebuilt = await f.telemetry.rebuild();
    assert.deepEqual([rebuilt.batches, rebuilt.missing, rebuilt.carried], [0, 0, { batches: 0, events: 0 }]);
    assert.deepEqual(rebuilt.expired, { batches: expired.length, events: (live.events as unknown[]).length });
    assert.deepStrictEqual(await answers(f, user, repos), live);

    // a newer normalizer: the swept events are carried over as they are, with their own version
    await f.telemetry.rebuild('9.0.0-after-sweep');
    const upgraded = await answers(f, user, repos);
    assert.deepStrictEqual(withoutVersion(upgraded), withoutVersion(live));
    assert.ok([...f.telemetry.reader().allEvents()].every((e) => e.normalizerVersion === NORMALIZER_VERSION));
  });

  it('keeps an activation whose events a swept and a retained batch share, across the rebuild a newer normalizer starts at hub start', async function () {
    this.timeout(30_000);
    let now = Date.UTC(2026, 0, 10, 12);
    f = await telemetryFixture({ now: () => now });
    const user = f.user('split');
    const repo = await f.linkRepository(user, 'acme/app', ['rfp_split_repo']);
    const resource = { 'service.name': 'claude-code', 'forge.repository.fingerprint': 'rfp_split_repo' };
    const skill = { 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k', 'artifact.version': '1.0.0' };
    const t0 = now - 3_600_000;
    // swept later: the activation span (its end is not in its event row), an intervention and an uninstall
    const span = testSpan('activate_skill a', { ...skill, 'agent.skill.event.id': 'evt_span', 'agent.skill.activation.id': 'act_split', 'agent.skill.result': 'ok', 'agent.skill.trigger.type': 'explicit' }, t0, t0 + 40);
    assert.equal((await f.post('traces', await encodeOtlpRequest(tracesRequest([span], resource), 'protobuf'), { auth: user.device })).status, 200);
    const old = logsRequest(
      [
        skillRecord('agent.user.intervention', { ...skill, 'agent.skill.event.id': 'evt_stop', 'agent.skill.activation.id': 'act_split', 'agent.intervention.type': 'stop' }, t0 + 1000),
        skillRecord('agent.skill.inventory.changed', { ...skill, 'agent.skill.event.id': 'evt_gone', 'agent.skill.inventory.action': 'removed' }, t0 + 2000),
      ],
      resource,
    );
    assert.equal((await f.post('logs', await encodeOtlpRequest(old, 'protobuf'), { auth: user.device })).status, 200);
    await f.telemetry.drain();
    // retained: a later event of the same activation, and a new activation
    now += 50 * DAY;
    const recent = logsRequest(
      [
        skillRecord('agent.action.completed', { ...skill, 'agent.skill.event.id': 'evt_off', 'agent.skill.activation.id': 'act_split', 'agent.skill.phase': 'deactivated', 'agent.action.type': 'skill_deactivate' }, now - 1000),
        skillRecord('agent.skill.selected', { ...skill, 'agent.skill.event.id': 'evt_new', 'agent.skill.activation.id': 'act_new' }, now - 500),
      ],
      resource,
    );
    assert.equal((await f.post('logs', await encodeOtlpRequest(recent, 'protobuf'), { auth: user.device })).status, 200);
    await f.telemetry.drain();
    const live = await answers(f, user, [repo]);
    const activation = f.telemetry.reader().getActivation(user.id, 'act_split', user.deviceId)!;
    assert.equal(activation.load, 'complete');
    assert.ok(activation.loadedAt && activation.loadDurationMs === 40, 'the span end set the load time');

    now += 50 * DAY;
    assert.equal((await f.telemetry.sweep()).batches, 2, 'the two old batches are swept, the recent one stays');
    assert.equal([...f.storage.telemetry.rawBatches.listByReceipt()].length, 1);
    assert.deepStrictEqual(await answers(f, user, [repo]), live);

    // the hub restarts with a newer normalizer and rebuilds by itself
    await f.telemetry.stop();
    await f.storage.close();
    const storage = openEmbeddedStorage(f.dataDir);
    const telemetry = new TelemetryService(storage, { normalizerVersion: '9.1.0-upgrade', autoNormalize: false, now: () => now });
    const dataDir = f.dataDir;
    f = { ...f, storage, telemetry, app: createHubApp({ storage, telemetry }), cleanup: async () => {
      await telemetry.stop();
      await storage.close();
      await (await import('node:fs/promises')).rm(dataDir, { recursive: true, force: true });
    } };
    await telemetry.start();
    await telemetry.drain();
    assert.equal(storage.telemetry.projections.active()?.normalizerVersion, '9.1.0-upgrade');
    assert.deepStrictEqual(withoutVersion(await answers(f, user, [repo])), withoutVersion(live));
    const versions = Object.fromEntries([...telemetry.reader().allEvents()].map((e) => [e.eventId, e.normalizerVersion]));
    assert.deepEqual(versions, { evt_span: NORMALIZER_VERSION, evt_stop: NORMALIZER_VERSION, evt_gone: NORMALIZER_VERSION, evt_off: '9.1.0-upgrade', evt_new: '9.1.0-upgrade' });
  });

  it('carries over from the live generation the events of batches swept before their facts were kept', async function () {
    this.timeout(60_000);
    f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    const user = f.user('legacy');
    const repos = [...(await deliverGoldenFixtures(f, user)).keys()];
    const live = await answers(f, user, repos);
    // what a hub swept before it kept the facts of swept batches: the raw batch records are gone
    const raw = [...f.storage.telemetry.rawBatches.listByReceipt()];
    for (const r of raw) await f.storage.telemetry.rawBatches.delete(r.accountId, r.id);

    const rebuilt = await f.telemetry.rebuild('9.2.0-legacy');
    assert.deepEqual([rebuilt.batches, rebuilt.missing, rebuilt.expired.batches], [0, 0, 0]);
    assert.equal(rebuilt.carried.events, (live.events as unknown[]).length);
    assert.equal(rebuilt.carried.batches, new Set([...f.telemetry.reader().allEvents()].map((e) => e.rawBatchId)).size);
    assert.deepStrictEqual(withoutVersion(await answers(f, user, repos)), withoutVersion(live));
  });
});
