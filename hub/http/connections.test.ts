import assert from 'node:assert/strict';
import { isSfError, SfError } from '../../core/errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { rawClient, trickleHeaders } from '../../test-support/raw-http.js';
import { issueToken } from '../auth/tokens.js';
import { startHub, type RunningHub } from '../serve.js';
import { readCappedBody } from './capped-body.js';

describe('hub connection limits (slowloris, stalled bodies, memory of bodies in flight)', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let hub: RunningHub;
  before(async () => {
    tmp = await tempDir('sf-hub-conn-');
    hub = await startHub({ dataDir: tmp.path, connections: { headersTimeoutMs: 600, requestTimeoutMs: 1_200, checkIntervalMs: 100 } });
  });
  after(async () => {
    await hub.close();
    await tmp.cleanup();
  });

  it('closes a connection that trickles its headers once the header timeout passes', async function () {
    this.timeout(15_000);
    const { answer, closedAfterMs } = await rawClient(hub.port, (s) => trickleHeaders(s));
    assert.ok(closedAfterMs < 4_000, `closed after ${closedAfterMs} ms`);
    assert.match(answer, /^HTTP\/1\.1 408/);
  });

  it('closes a request whose body stalls once the request timeout passes', async function () {
    this.timeout(15_000);
    const user = hub.storage.accounts.createUser('trickler', false);
    const token = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 'test', scopes: ['telemetry:write'] }).secret;
    const { answer, closedAfterMs } = await rawClient(hub.port, (s) => {
      s.write(`POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/x-protobuf\r\nContent-Length: 1000\r\n\r\n`);
      s.write(Buffer.alloc(10));
    });
    assert.ok(closedAfterMs >= 1_000 && closedAfterMs < 5_000, `closed after ${closedAfterMs} ms`);
    assert.match(answer, /^HTTP\/1\.1 408/);
    const health = await fetch(`${hub.url}/healthz`);
    assert.equal(health.status, 200);
  });

  it('refuses (503, retry) a body that would take the bodies being received over the budget, and releases what it counted', async () => {
    const budget = { used: 0, max: 1_000 };
    const tooLarge = (max: number) => new SfError('SF_E_LIMIT', `over ${max}`);
    const body = (n: number) => new Request('http://h/', { method: 'POST', body: new Uint8Array(n) });
    assert.equal((await readCappedBody(body(600), 10_000, tooLarge, budget)).byteLength, 600);
    assert.equal(budget.used, 0, 'released once read');
    budget.used = 700; // another request is halfway through
    await assert.rejects(readCappedBody(body(600), 10_000, tooLarge, budget), (e: unknown) => isSfError(e, 'SF_E_UNAVAILABLE') && e.data?.retryAfterSeconds === 2);
    assert.equal(budget.used, 700);
  });
});
