import assert from 'node:assert/strict';
import { utimes, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import { sha256Hex } from './gateway.js';

/** The sweeper against raw blobs no record references, and against an ingest of the same bytes running alongside it. */

const DAY = 86_400_000;
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

describe('hub raw-blob sweep', () => {
  let f: TelemetryFixture;
  afterEach(async () => f?.cleanup());

  const body = (id: string) => encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.event.id': id, 'agent.skill.activation.id': `act_${id}`, 'agent.skill.id': 'o/k:a' }, T0)]), 'protobuf');

  it('removes blobs and temp files no record references once they are past the grace period, and nothing younger or referenced', async () => {
    let now = T0;
    f = await telemetryFixture({ now: () => now });
    const u = f.user('alice');
    assert.equal((await f.post('logs', await body('evt_kept'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const blobs = f.storage.telemetry.rawBlobs;
    // what a crash between the blob write and the LMDB admit leaves behind
    const orphan = await blobs.put(Buffer.from('orphaned raw batch'));
    const fresh = await blobs.put(Buffer.from('an admit in flight'));
    const root = join(f.dataDir, 'telemetry-raw');
    const tmp = join(root, orphan.slice(0, 2), `${orphan}.tmp-0123456789ab`);
    await writeFile(tmp, 'half a batch');
    const old = new Date(T0 - 2 * DAY);
    for (const p of [join(root, orphan.slice(0, 2), orphan), tmp]) await utimes(p, old, old);
    const young = new Date(T0 - 60_000);
    await utimes(join(root, fresh.slice(0, 2), fresh), young, young);
    const referenced = f.storage.telemetry.rawBatches.listByReceipt()[Symbol.iterator]().next().value!.sha256;
    await utimes(join(root, referenced.slice(0, 2), referenced), old, old);

    assert.deepEqual(await f.telemetry.sweep(), { batches: 0, blobs: 0, orphanBlobs: 1, tempFiles: 1 });
    assert.equal(await blobs.has(orphan), false);
    assert.deepEqual(await readdir(join(root, orphan.slice(0, 2))), [], 'the temp file is gone too');
    assert.equal(await blobs.has(fresh), true, 'a blob younger than the grace period may be an admit in flight');
    assert.equal(await blobs.has(referenced), true, 'a blob with a record is the retention pass\'s to sweep');
    now += HOUR * 2;
    assert.deepEqual(await f.telemetry.sweep(), { batches: 0, blobs: 0, orphanBlobs: 1, tempFiles: 0 }, 'past the grace period, the unreferenced blob is an orphan too');
    assert.equal(await blobs.has(fresh), false);
    assert.equal(await blobs.has(referenced), true);
  });

  it('never leaves an acknowledged batch without its blob when the sweeper deletes the same bytes for another account', async () => {
    let now = T0;
    f = await telemetryFixture({ now: () => now });
    const alice = f.user('alice');
    const bob = f.user('bob');
    const bytes = await body('evt_shared');
    assert.equal((await f.post('logs', bytes, { auth: alice.device })).status, 200);
    await f.telemetry.drain();
    now += 200 * DAY; // alice's batch is past retention

    // bob's ingest of the same bytes stops right after its blob put (a no-op: alice's blob is there)
    const blobs = f.storage.telemetry.rawBlobs;
    const put = blobs.put.bind(blobs);
    let putDone!: () => void;
    const bobPutDone = new Promise<void>((r) => (putDone = r));
    let resume!: () => void;
    const bobMayAdmit = new Promise<void>((r) => (resume = r));
    blobs.put = async (b, sha) => {
      const key = await put(b, sha);
      putDone();
      await bobMayAdmit;
      return key;
    };
    const bobPost = f.post('logs', bytes, { auth: bob.device });
    await bobPutDone;
    // the sweeper runs in that window, then bob's admit goes on
    const sweep = f.telemetry.sweep();
    await new Promise((r) => setTimeout(r, 50));
    resume();
    const [res, swept] = await Promise.all([bobPost, sweep]);
    blobs.put = put;
    assert.equal(res.status, 200);
    assert.equal(swept.batches, 1, 'alice\'s batch is swept');
    const bobs = [...f.storage.telemetry.rawBatches.listByReceipt()].filter((r) => r.accountId === bob.id);
    assert.equal(bobs.length, 1);
    assert.equal(bobs[0].sha256, sha256Hex(bytes));
    assert.equal(await blobs.has(bobs[0].sha256), true, 'bob\'s acknowledged batch kept its blob');
    await f.telemetry.drain();
    assert.ok(f.telemetry.reader().getEvent(bob.id, 'evt_shared'), 'and was normalized from it');
  });
});
