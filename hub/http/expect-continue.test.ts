import assert from 'node:assert/strict';
import { request } from 'node:http';
import { tempDir } from '../../test-support/index.js';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logBatches } from '../../bench/telemetry-batches.js';
import { issueToken } from '../auth/tokens.js';
import { startHub, type RunningHub } from '../serve.js';

interface Exchange {
  status: number;
  /** the hub answered 100 Continue (so the body was sent) */
  continued: boolean;
}

/** POSTs with `Expect: 100-continue`, sending the body only if the hub asks for it (as curl and Node clients do). */
function postExpecting(url: string, headers: Record<string, string>, body: Uint8Array, declaredLength = body.length): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = request(url, { method: 'POST', headers: { ...headers, expect: '100-continue', 'content-length': String(declaredLength) } });
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        resolve({ status: res.statusCode!, continued });
        // a refusal before the body: the body is never sent
        if (!continued) req.destroy();
      });
    });
    req.on('error', (e) => (continued ? reject(e) : undefined));
  });
}

describe('hub: Expect: 100-continue', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let hub: RunningHub;
  let telemetry: string;
  let registry: string;
  let body: Uint8Array;
  before(async () => {
    tmp = await tempDir('sf-hub-continue-');
    hub = await startHub({ dataDir: tmp.path, limits: { maxUploadBytes: 4096 } });
    const user = hub.storage.accounts.createUser('carol', false);
    telemetry = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 't', scopes: ['telemetry:write'] }).secret;
    registry = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 'r', scopes: ['registry:write'] }).secret;
    body = await encodeOtlpRequest([...logBatches({ size: 4, batches: 1, seed: 3, repositoryFingerprint: 'rfp_x' })][0], 'protobuf');
  });
  after(async () => {
    await hub.close();
    await tmp.cleanup();
  });

  it('answers 401 before the body is sent when the credential is wrong, and 100 then 200 when it is right', async () => {
    const headers = { 'content-type': 'application/x-protobuf' };
    assert.deepEqual(await postExpecting(`${hub.url}/v1/logs`, { ...headers, authorization: 'Bearer sfp_wrong' }, body), { status: 401, continued: false });
    assert.deepEqual(await postExpecting(`${hub.url}/v1/logs`, headers, body), { status: 401, continued: false });
    assert.deepEqual(await postExpecting(`${hub.url}/v1/logs`, { ...headers, authorization: `Bearer ${telemetry}` }, body), { status: 200, continued: true });
  });

  it('refuses a wrong content type or a token without the scope before the body, and an upload declared over the limit with 413', async () => {
    assert.deepEqual(await postExpecting(`${hub.url}/v1/logs`, { 'content-type': 'text/plain', authorization: `Bearer ${telemetry}` }, body), { status: 415, continued: false });
    assert.deepEqual(await postExpecting(`${hub.url}/v1/logs`, { 'content-type': 'application/x-protobuf', authorization: `Bearer ${registry}` }, body), { status: 403, continued: false });
    const release = `${hub.url}/api/v1/skits/carol/kit/releases/1.0.0`;
    const r = await postExpecting(release, { 'content-type': 'application/gzip', authorization: `Bearer ${registry}` }, new Uint8Array(16), 1_000_000);
    assert.deepEqual(r, { status: 413, continued: false });
  });
});
