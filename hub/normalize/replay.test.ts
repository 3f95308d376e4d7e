import assert from 'node:assert/strict';
import { NORMALIZER_VERSION } from './version.js';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import { TelemetryService } from '../telemetry/service.js';
import { encodeOtlpRequest, type OtlpAttributes, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import type { UsageReport } from '../query/usage.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { deliver, GOLDEN_FIXTURES, GOLDEN_RECEIPT_MS, loadOtlpFixture, projectionSnapshot, setUpAccount } from '../test-support/otlp-fixtures.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import { normalizeBatch } from './normalize-batch.js';
import { batchContext } from './worker.js';

/** Every golden fixture delivered to one account (fixture repositories are linked once). */
async function deliverAll(f: TelemetryFixture, user: TelemetryUser, setUp = true): Promise<Map<string, string>> {
  const repos = new Map<string, string>();
  for (const name of GOLDEN_FIXTURES) {
    const fx = await loadOtlpFixture(name);
    if (setUp && repos.size === 0) for (const [id, n] of await setUpAccount(f, user, fx)) repos.set(id, n);
    for (const r of await deliver(f, user, fx)) assert.equal(r.status, 200);
  }
  return repos;
}

const withoutVersion = (s: unknown) => JSON.parse(JSON.stringify(s, (k, v) => (k === 'normalizerVersion' ? undefined : v)));

describe('hub normalizer: idempotent and replayable', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  it('applying a raw batch any number of times changes nothing after the first', async () => {
    f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    const user = f.user('replay');
    const repos = await deliverAll(f, user);
    await f.telemetry.drain();
    const once = projectionSnapshot(f, user, repos);
    const gen = f.telemetry.generation();
    for (const record of f.storage.telemetry.rawBatches.listByReceipt()) {
      const request = (await f.telemetry.loadRaw(record))!;
      for (let i = 0; i < 3; i++) {
        const stats = await f.storage.telemetry.projections.write(gen, (w) => normalizeBatch(w, request, batchContext(f.storage.telemetry, record, '1.0.0')));
        assert.equal(stats.events, 0, `${record.id} replay ${i} applied new events`);
      }
    }
    assert.deepStrictEqual(projectionSnapshot(f, user, repos), once);
    // and through the front door: every fixture delivered again
    await deliverAll(f, user, false);
    await f.telemetry.drain();
    assert.deepStrictEqual(projectionSnapshot(f, user, repos), once);
  });

  it('replaying every raw batch into a new normalizer version rebuilds the same projections', async () => {
    f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    const user = f.user('rebuild');
    const repos = await deliverAll(f, user);
    await f.telemetry.drain();
    const before = projectionSnapshot(f, user, repos);
    const oldGeneration = f.telemetry.generation();
    const result = await f.telemetry.rebuild('1.1.0-rebuild-test');
    assert.equal(result.missing, 0);
    assert.equal(result.duplicates, 2, 'only the re-chunked retry of duplicate-delivery repeats events across batches');
    assert.equal(result.generation.generation, oldGeneration + 1);
    assert.equal(f.telemetry.generation(), oldGeneration + 1);
    const after = projectionSnapshot(f, user, repos);
    assert.deepStrictEqual(withoutVersion(after), withoutVersion(before));
    assert.ok(after.skill_activations.every((r) => (r as { normalizerVersion: string }).normalizerVersion === '1.1.0-rebuild-test'));
    assert.equal([...f.storage.telemetry.projections.reader(oldGeneration).allEvents()].length, 0, 'the old generation is dropped');
    // new deliveries after the switch land in the new generation
    await deliver(f, user, await loadOtlpFixture('normal-activation'));
    await f.telemetry.drain();
    assert.deepStrictEqual(withoutVersion(projectionSnapshot(f, user, repos)), withoutVersion(before));
  });

  it('a queue left by a stopped hub is normalized after restart, from the raw batches', async () => {
    f = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    const user = f.user('restart');
    const fx = await loadOtlpFixture('jfdi-unsafe-autonomy');
    const repos = await setUpAccount(f, user, fx);
    await deliver(f, user, fx);
    assert.equal(f.telemetry.queued(), 3);
    await f.telemetry.stop();
    await f.storage.close();
    const storage = openEmbeddedStorage(f.dataDir);
    const telemetry = new TelemetryService(storage, { now: () => GOLDEN_RECEIPT_MS });
    await telemetry.start();
    await telemetry.drain();
    assert.equal(storage.telemetry.queue.depth(), 0);
    const expected = await telemetryFixture({ now: () => GOLDEN_RECEIPT_MS });
    try {
      const u2 = expected.user('restart');
      const r2 = await setUpAccount(expected, u2, fx);
      await deliver(expected, u2, fx);
      await expected.telemetry.drain();
      const restarted = projectionSnapshot({ ...f, storage, telemetry } as TelemetryFixture, user, repos);
      assert.deepStrictEqual(restarted, projectionSnapshot(expected, u2, r2));
    } finally {
      await expected.cleanup();
      await telemetry.stop();
      await storage.close();
      // f's own storage is already closed: only its directory remains to remove
      const dir = f.dataDir;
      f = { cleanup: async () => (await import('node:fs/promises')).rm(dir, { recursive: true, force: true }) } as unknown as TelemetryFixture;
    }
  });

  const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);
  const post = async (user: TelemetryUser, records: OtlpLogRecord[], resource: OtlpAttributes = { 'service.name': 'codex' }) => {
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records, resource), 'protobuf'), { auth: user.device })).status, 200);
    await f.telemetry.drain();
  };

  it('a rebuild reproduces the live projections: repositories resolve as at ingest, and batches received in the same millisecond in any order', async () => {
    // the hub's clock stands still: every batch is received in the same millisecond, so the
    // rebuild replays them in [receivedAtMs, account, sha] order, not the order they came in
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const user = f.user('late');
    const fp = 'rfp_late_repo_1';
    await post(user, [skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_r', 'agent.skill.id': 'o/k:a' }, T0)], { 'service.name': 'codex', 'forge.repository.fingerprint': fp });
    const repo = await f.linkRepository(user, 'late/app', [fp]);
    // after the link, the same hint resolves
    await post(user, [skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_s', 'agent.skill.id': 'o/k:a' }, T0 + 10)], { 'service.name': 'codex', 'forge.repository.fingerprint': fp });
    for (const act of ['act_q', 'act_p']) {
      await post(user, [skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a', 'artifact.version': '1.0.0' }, T0 + 20)]);
      await post(user, [skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a', 'artifact.version': '1.1.0' }, T0 + 25)]);
    }
    const r = () => f.telemetry.reader();
    const view = async () => ({
      rows: withoutVersion(projectionSnapshot(f, user, new Map([[repo, 'late/app']]))),
      timeline: withoutVersion(await f.getJson(`/api/v1/telemetry/repositories/${repo}/timeline?from=0`, user.pat)),
      usage: (await f.getJson<UsageReport>('/api/v1/telemetry/skits/o/k/usage?from=2026-08-01T00:00:00Z', user.pat)).versions,
    });
    assert.deepEqual(['act_r', 'act_s', 'act_q', 'act_p'].map((id) => r().getActivation(user.id, id, user.deviceId)!.repositoryResolution), ['repo_unresolved', 'resolved', 'repo_unresolved', 'repo_unresolved']);
    assert.deepEqual(['act_q', 'act_p'].map((id) => r().getActivation(user.id, id, user.deviceId)!.artifactVersion), ['1.1.0', '1.1.0']);
    const live = await view();
    await f.telemetry.rebuild('1.2.0-rebuild-test');
    assert.deepStrictEqual(await view(), live);
  });

  it('records without agent.skill.event.id dedupe on a batch-local fingerprint (inferred): two identical ones in a batch stay two, across batches they are one', async () => {
    // spec "Cardinality, sampling, and governance": a batch-local fingerprint, marked inferred. A
    // count across batches would make a retried (re-chunked) batch count again; a count without
    // the occurrence index would merge two real events of one batch.
    const uninstall = () => {
      const rec = skillRecord('agent.skill.inventory.changed', { 'agent.skill.inventory.action': 'removed', 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k' }, T0);
      delete rec.attributes['agent.skill.event.id'];
      return rec;
    };
    const out: unknown[] = [];
    for (const split of [false, true]) {
      f = await telemetryFixture({ now: () => T0 + 86_400_000 });
      const user = f.user('fp');
      if (split) {
        await post(user, [uninstall()], { 'service.name': 'claude-code' });
        await post(user, [uninstall()], { 'service.name': 'claude-code', 'service.version': '1' });
      } else await post(user, [uninstall(), uninstall()], { 'service.name': 'claude-code' });
      const events = [...f.telemetry.reader().allEvents()];
      const usage = await f.getJson<UsageReport>('/api/v1/telemetry/skits/o/k/usage?from=2026-08-01T00:00:00Z', user.pat);
      out.push([split ? 'two batches' : 'one batch', events.length, usage.totals.uninstalls, [...new Set(events.map((e) => e.dedupBasis))]]);
      // replaying the raw batches changes nothing
      const before = JSON.stringify(projectionSnapshot(f, user, new Map()));
      for (const record of f.storage.telemetry.rawBatches.listByReceipt()) {
        const request = (await f.telemetry.loadRaw(record))!;
        await f.storage.telemetry.projections.write(f.telemetry.generation(), (w) => normalizeBatch(w, request, batchContext(f.storage.telemetry, record, NORMALIZER_VERSION)));
      }
      assert.equal(JSON.stringify(projectionSnapshot(f, user, new Map())), before);
      await f.cleanup();
      f = undefined as unknown as TelemetryFixture;
    }
    assert.deepEqual(out, [['one batch', 2, 2, ['batch_fingerprint']], ['two batches', 1, 1, ['batch_fingerprint']]]);
  });

  it('an id the observer made as a batch fingerprint (fp_<32 hex>) is still inferred dedupe, not an event id', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const user = f.user('fpo');
    const rec = skillRecord('agent.skill.inventory.changed', { 'agent.skill.inventory.action': 'removed', 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k', 'agent.skill.event.id': `fp_${'a1'.repeat(16)}` }, T0);
    const named = skillRecord('agent.skill.inventory.changed', { 'agent.skill.inventory.action': 'removed', 'agent.skill.id': 'o/k:b', 'agent.skill.package.id': 'o/k' }, T0);
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest([rec, named]), 'protobuf'), { auth: user.device })).status, 200);
    await f.telemetry.drain();
    const bases = Object.fromEntries([...f.telemetry.reader().allEvents()].map((e) => [e.skillId, e.dedupBasis]));
    assert.deepEqual(bases, { 'o/k:a': 'batch_fingerprint', 'o/k:b': 'event_id' });
  });
});
