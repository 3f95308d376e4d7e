import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decompressBody } from '../core/telemetry/otlp/body.js';
import { decodeOtlpRequest, encodingOf } from '../core/telemetry/otlp/decode.js';
import { encodeExportResponse } from '../core/telemetry/otlp/encode.js';
import type { OtlpRequest, OtlpSignal } from '../core/telemetry/otlp/types.js';

/** A real OTLP/HTTP receiver on 127.0.0.1 for tests: decodes and records what it is sent. */
export interface OtlpSink {
  origin: string;
  port: number;
  requests: { signal: OtlpSignal; encoding: string; headers: IncomingMessage['headers']; request: OtlpRequest }[];
  /** answer with this status (e.g. 503) instead of accepting; undefined accepts */
  failWith: number | undefined;
  /** requests answered with failWith */
  failed: number;
  close(): Promise<void>;
}

const SIGNALS: Record<string, OtlpSignal> = { '/v1/logs': 'logs', '/v1/traces': 'traces', '/v1/metrics': 'metrics' };

/** Starts a sink (port 0: any free port; a fixed port to restart a killed one). */
export async function startOtlpSink(port = 0): Promise<OtlpSink> {
  const sink: OtlpSink = {
    origin: '', port: 0, requests: [], failWith: undefined, failed: 0,
    close: async () => undefined,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const signal = SIGNALS[(req.url ?? '').split('?')[0]];
      const encoding = encodingOf(req.headers['content-type']);
      if (!signal || !encoding) {
        res.writeHead(404).end();
        return;
      }
      if (sink.failWith) {
        sink.failed++;
        res.writeHead(sink.failWith, { 'retry-after': '0' }).end();
        return;
      }
      const body = decompressBody(Buffer.concat(chunks), req.headers['content-encoding'], 64 * 1024 * 1024);
      const request = await decodeOtlpRequest(signal, body, encoding);
      if (request.resources.length > 0) sink.requests.push({ signal, encoding, headers: req.headers, request });
      res.writeHead(200, { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' });
      res.end(await encodeExportResponse(signal, encoding));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  sink.port = (server.address() as AddressInfo).port;
  sink.origin = `http://127.0.0.1:${sink.port}`;
  sink.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return sink;
}

/** Polls `check` until it returns a value (not undefined/false) or `timeoutMs` passes. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1 (for child processes that need a fixed port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
