import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { createHubApp } from '../app.js';
import type { HealthReport } from '../query/health.js';
import type { RawBatchRecord } from '../storage/telemetry-ports.js';
import { TelemetryService } from '../telemetry/service.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';

const blobPath = (f: TelemetryFixture, r: RawBatchRecord) => join(f.dataDir, 'telemetry-raw', r.sha256.slice(0, 2), r.sha256);

/** Runs `fn` with console.error captured; resolves to what was logged, one string per call. */
async function logged(fn: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  try {
    await fn();
  } finally {
    console.error = original;
  }
  return lines;
}

/** One batch of `n` activations (selected and loaded) of the user. */
async function postActivations(f: TelemetryFixture, user: TelemetryUser, tag: string, n: number): Promise<RawBatchRecord> {
  const records = [];
  for (let i = 0; i < n; i++) {
    const act = { 'agent.skill.activation.id': `act_${tag}_${i}`, 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k' };
    records.push(skillRecord('agent.skill.selected', { ...act, 'agent.skill.event.id': `evt_${tag}_${i}_s` }, Date.now() - 60_000));
    records.push(skillRecord('agent.skill.loaded', { ...act, 'agent.skill.event.id': `evt_${tag}_${i}_l` }, Date.now() - 59_000));
  }
  assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: user.device })).status, 200);
  return [...f.storage.telemetry.rawBatches.listByReceipt()].at(-1)!;
}

/**
 * A raw batch whose bytes no longer decode (a truncated file) or are gone made every rebuild fail
 * (the admin got `400 SF_E_OTLP_DECODE` with a hint for OTLP clients, and the rebuild a normalizer
 * upgrade starts failed at every hub start); the live worker dropped such a batch after its
 * attempts with nothing but "will retry" in the log, and nothing anywhere said its acknowledged
 * records were never normalized.
 */
describe('hub normalizer: a raw batch it cannot read (hub/normalize/rebuild, hub/normalize/worker)', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  it('a rebuild counts it in missing, logs its id, keeps what the live generation had of it and goes on', async () => {
    f = await telemetryFixture();
    const admin = f.user('root', { admin: true });
    const user = f.user('alice');
    const bad = await postActivations(f, user, 'bad', 3);
    await postActivations(f, user, 'good', 2);
    await f.telemetry.drain();
    const events = () => [...f!.telemetry.reader().allEvents()].map((e) => e.eventId).sort();
    const activations = () => [...f!.telemetry.reader().allActivations()].map((a) => ({ ...a, normalizerVersion: undefined })).sort((a, b) => (a.activationId < b.activationId ? -1 : 1));
    const live = { events: events(), activations: activations() };
    assert.equal(live.events.length, 10);
    await writeFile(blobPath(f, bad), (await readFile(blobPath(f, bad))).subarray(0, 20));

    let response: Response | undefined;
    const lines = await logged(async () => {
      response = await f!.app.request('/api/v1/telemetry/admin/rebuild', { method: 'POST', headers: admin.pat });
    });
    assert.equal(response!.status, 200);
    const result = (await response!.json()) as { batches: number; missing: number; carried: { batches: number; events: number } };
    assert.deepEqual([result.batches, result.missing, result.carried], [1, 1, { batches: 1, events: 6 }]);
    assert.ok(lines.some((l) => l.includes(bad.id) && l.includes('skipped')), lines.join('\n'));
    assert.deepEqual({ events: events(), activations: activations() }, live);

    // a normalizer upgrade's rebuild at hub start completes too
    await f.telemetry.stop();
    const telemetry = new TelemetryService(f.storage, { autoNormalize: false, normalizerVersion: '9.0.0-upgrade' });
    try {
      await logged(async () => {
        await telemetry.start();
        await telemetry.drain();
      });
      assert.equal(f.storage.telemetry.projections.active()?.normalizerVersion, '9.0.0-upgrade');
      assert.deepEqual([...telemetry.reader().allEvents()].map((e) => e.eventId).sort(), live.events);
    } finally {
      await telemetry.stop();
    }
  });

  it('the worker drops it after its attempts, logs it as dropped, and the health view counts it until a rebuild replays it', async function () {
    this.timeout(20_000);
    f = await telemetryFixture();
    const user = f.user('bob');
    const truncated = await postActivations(f, user, 'trunc', 2);
    const gone = await postActivations(f, user, 'gone', 1);
    await postActivations(f, user, 'fine', 1);
    // the hub stops with the three batches queued; while it is down one blob is damaged and one lost
    await f.telemetry.stop();
    const bytes = await readFile(blobPath(f, truncated));
    await writeFile(blobPath(f, truncated), bytes.subarray(0, 20));
    const goneBytes = await readFile(blobPath(f, gone));
    await rm(blobPath(f, gone));

    const telemetry = new TelemetryService(f.storage, { autoNormalize: false });
    const app = createHubApp({ storage: f.storage, telemetry });
    try {
      const lines = await logged(async () => {
        await telemetry.start();
        await telemetry.drain();
      });
      const about = (id: string) => lines.filter((l) => l.includes(id));
      assert.equal(about(truncated.id).length, 3, lines.join('\n'));
      assert.match(about(truncated.id)[0], /attempt 1 of 3, will retry/);
      assert.match(about(truncated.id)[2], /dropped raw batch .* after 3 failed attempts: its 4 records are not normalized/);
      assert.doesNotMatch(about(truncated.id)[2], /will retry/);
      assert.deepEqual(about(gone.id).map((l) => /dropped raw batch .*: its raw bytes are gone, so its 2 records are not normalized/.test(l)), [true]);
      assert.equal(f.storage.telemetry.queue.depth(), 0);
      assert.equal([...telemetry.reader().allEvents()].length, 2, 'the readable batch is normalized');

      const health = async () => (await (await app.request('/api/v1/telemetry/health', { headers: user.pat })).json()) as HealthReport;
      const report = await health();
      assert.equal(report.summary.records, 8, 'the hub acknowledged every record');
      assert.deepEqual([report.summary.normalizationFailedBatches, report.summary.normalizationFailedRecords], [2, 6]);
      assert.deepEqual(report.normalizationFailed.map((b) => [b.batchId, b.records, b.deviceId]).sort(), [[truncated.id, 4, user.deviceId], [gone.id, 2, user.deviceId]].sort());
      assert.match(report.normalizationFailed.find((b) => b.batchId === gone.id)!.reason, /raw bytes are gone/);

      // the bytes are back (restored from a backup): a rebuild replays both batches and the health view clears
      await writeFile(blobPath(f, truncated), bytes);
      await writeFile(blobPath(f, gone), goneBytes);
      const rebuilt = await telemetry.rebuild();
      assert.deepEqual([rebuilt.batches, rebuilt.missing], [3, 0]);
      assert.equal([...telemetry.reader().allEvents()].length, 8);
      assert.deepEqual([(await health()).summary.normalizationFailedBatches, (await health()).normalizationFailed], [0, []]);
    } finally {
      await telemetry.stop();
    }
  });

  it('so does the normalizer thread', async function () {
    this.timeout(20_000);
    f = await telemetryFixture();
    const user = f.user('carol');
    const truncated = await postActivations(f, user, 'thread', 2);
    await f.telemetry.stop();
    await writeFile(blobPath(f, truncated), (await readFile(blobPath(f, truncated))).subarray(0, 20));
    const telemetry = new TelemetryService(f.storage, { autoNormalize: true, normalizerThread: { dataDir: f.dataDir } });
    try {
      const lines = await logged(async () => {
        await telemetry.start();
        await telemetry.drain();
      });
      assert.match(lines.filter((l) => l.includes(truncated.id)).at(-1)!, /dropped raw batch .* after 3 failed attempts: its 4 records are not normalized/);
      f.storage.telemetry.freshReads();
      assert.deepEqual(f.storage.telemetry.health.normalizationFailures(user.id).map((b) => [b.batchId, b.records]), [[truncated.id, 4]]);
    } finally {
      await telemetry.stop();
    }
  });
});
