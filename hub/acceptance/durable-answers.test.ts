import { strict as assert } from 'node:assert';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { packSkit, twoSkillTree } from '../../test-support/skit-archive.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

/**
 * The embedded store makes a commit visible before it is flushed (lmdb overlappingSync), so a
 * hub that answered at commit could acknowledge an OTLP batch or a release that a power cut then
 * takes back. Every write is answered only after `storage.durable()`; here a gate in front of the
 * real flush shows that each answer waits for it, and that reads never do.
 */
describe('hub: writes are answered only once durable', () => {
  let f: TelemetryFixture;
  let open: () => void;
  beforeEach(async () => {
    f = await telemetryFixture();
    const flush = f.storage.durable.bind(f.storage);
    const gate = new Promise<void>((r) => (open = r));
    f.storage.durable = async () => {
      await gate;
      await flush();
    };
  });
  afterEach(async () => {
    open();
    await f.cleanup();
  });

  const settledWithin = async (p: Promise<Response>, ms: number) =>
    Promise.race([p.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), ms))]);

  it('holds an OTLP export and a release publish until the store has flushed them; answers a read at once', async () => {
    const alice = f.user('alice', { scopes: ['registry:read', 'registry:write'] });
    const body = await encodeOtlpRequest(logsRequest([skillRecord('agent.skill.selected', { 'agent.skill.event.id': 'evt_durable_1' })]), 'protobuf');
    const exported = f.post('logs', body, { auth: alice.device });
    const kit = await packSkit(twoSkillTree('alice/kit'));
    try {
      const published = Promise.resolve(
        f.app.request('/api/v1/skits/alice/kit/releases/1.0.0', {
          method: 'PUT',
          body: kit.archive as unknown as BodyInit,
          headers: { 'content-type': 'application/gzip', ...alice.pat },
        }),
      );
      assert.equal(await settledWithin(exported, 300), false, 'the export was answered before the flush');
      assert.equal(await settledWithin(published, 50), false, 'the publish was answered before the flush');
      // committed already (visible to reads), and reads do not wait
      const read = await f.app.request('/api/v1/skits/alice/kit', { headers: alice.pat });
      assert.equal(read.status, 200);
      open();
      assert.equal((await exported).status, 200);
      assert.equal((await published).status, 201);
    } finally {
      await kit.cleanup();
    }
  });
});
