import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../core/telemetry/otlp/index.js';
import { logBatches } from '../bench/telemetry-batches.js';
import { tempDir } from '../test-support/index.js';
import { issueToken } from './auth/tokens.js';
import { startHub } from './serve.js';

describe('startHub: close', () => {
  it('resolves while the normalizer thread has just been handed a batch (its thread is ended, not waited for)', async function () {
    this.timeout(20_000);
    const dir = await tempDir('sf-hub-close-');
    try {
      for (let round = 0; round < 3; round++) {
        const hub = await startHub({ dataDir: dir.path });
        const user = hub.storage.accounts.findOwner('closer') ?? hub.storage.accounts.createUser('closer', false);
        const token = issueToken(hub.storage.tokens, { userId: user.id, kind: 'device', name: `d${round}`, scopes: ['telemetry:write'] }).secret;
        const body = await encodeOtlpRequest([...logBatches({ size: 8, batches: 1, seed: round, repositoryFingerprint: 'rfp_close' })][0], 'protobuf');
        const res = await fetch(`${hub.url}/v1/logs`, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        const closed = await Promise.race([hub.close().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 5_000).unref())]);
        assert.ok(closed, `round ${round}: hub.close() still pending after 5 s`);
      }
    } finally {
      await dir.cleanup();
    }
  });
});
