import assert from 'node:assert/strict';
import { rawClient, trickleHeaders } from '../../test-support/raw-http.js';
import { DEFAULT_OTLP_LIMITS } from '../telemetry/otlp/limits.js';
import { RECEIVER_CONNECTION_LIMITS, startReceiver, type Receiver } from './receiver.js';

describe('observer receiver: connection limits (a local process cannot hold it open)', () => {
  let receiver: Receiver;
  before(async () => {
    const handlers = { otlp: async () => undefined, pluginEvents: async () => ({ accepted: 0, rejected: 0 }), messages: async (items: unknown[]) => items, health: () => ({ ok: true }) };
    receiver = await startReceiver(0, handlers, DEFAULT_OTLP_LIMITS, '127.0.0.1', { ...RECEIVER_CONNECTION_LIMITS, headersTimeoutMs: 500, requestTimeoutMs: 1_000, checkIntervalMs: 100 });
  });
  after(() => receiver.close());

  it('closes a connection that trickles its headers, and one whose body stalls, with 408', async function () {
    this.timeout(15_000);
    const headers = await rawClient(receiver.port, (s) => trickleHeaders(s));
    assert.ok(headers.closedAfterMs < 4_000, `closed after ${headers.closedAfterMs} ms`);
    assert.match(headers.answer, /^HTTP\/1\.1 408/);
    const body = await rawClient(receiver.port, (s) => s.write('POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{'));
    assert.ok(body.closedAfterMs < 5_000, `closed after ${body.closedAfterMs} ms`);
    assert.match(body.answer, /^HTTP\/1\.1 408/);
    assert.equal((await fetch(`${receiver.url}/healthz`)).status, 200);
  });
});
