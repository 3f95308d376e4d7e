import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { serverOptionsFor, type ConnectionLimits } from '../runtime/connection-limits.js';
import type { AddressInfo } from 'node:net';
import { isSfError } from '../errors/index.js';
import { browserRequestRefusal } from './local-only.js';
import { httpStatusFor } from '../errors/codes.js';
import { decompressBody } from '../telemetry/otlp/body.js';
import { decodeOtlpRequest, encodingOf, type OtlpEncoding } from '../telemetry/otlp/decode.js';
import { decodeProtobufDirect } from '../telemetry/otlp/direct-decode.js';
import { encodeExportResponse, encodeRpcStatus } from '../telemetry/otlp/encode.js';
import { DEFAULT_OTLP_LIMITS, type OtlpLimits } from '../telemetry/otlp/limits.js';
import type { OtlpRequest, OtlpSignal } from '../telemetry/otlp/types.js';

/**
 * The observer's OTLP/HTTP receiver on 127.0.0.1 for the hosts' native telemetry, plus two Forge
 * routes for adapters that cannot use the Unix socket (the OpenCode plugin runs in Bun):
 *   POST /v1/logs | /v1/traces | /v1/metrics   protobuf or JSON, gzip/deflate; 200 with an empty
 *        Export*ServiceResponse once the request's output is journaled (durable: a 200 is never
 *        lost to a crash); 429 or 503 with Retry-After while the observer is overloaded or cannot
 *        write; 400 (google.rpc.Status), 413, 415, 405 otherwise
 *   POST /forge/v1/events     a plugin event, an array of them, or {"events": [...]}
 *   POST /forge/v1/messages   session-registry messages (same protocol as the socket)
 *   GET  /healthz
 * Requests that look like they come from a web page (a foreign Host or Origin) get 403, and the
 * two Forge routes take only application/json (see local-only.ts).
 */

export interface ReceiverHandlers {
  /**
   * Takes one decoded request; resolves once its output is durable. Rejects with SF_E_RATE_LIMIT
   * (data.retryAfterSeconds) to refuse it while overloaded.
   */
  otlp(req: OtlpRequest): Promise<void>;
  pluginEvents(events: unknown[]): Promise<{ accepted: number; rejected: number }>;
  messages(messages: unknown[]): Promise<unknown[]>;
  health(): Record<string, unknown>;
}

export interface Receiver {
  port: number;
  url: string;
  close(): Promise<void>;
}

const SIGNALS: Record<string, OtlpSignal> = { '/v1/logs': 'logs', '/v1/traces': 'traces', '/v1/metrics': 'metrics' };

function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > max) {
      req.resume();
      resolve('too_large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        resolve('too_large');
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const sendJson = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

// google.rpc.Code: INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE, UNKNOWN
const RPC_CODES: Record<number, number> = { 400: 3, 413: 8, 429: 8, 503: 14 };

async function sendStatus(res: ServerResponse, status: number, encoding: OtlpEncoding, message: string, retryAfterSeconds?: number): Promise<void> {
  res.writeHead(status, { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf', ...(retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {}) });
  res.end(await encodeRpcStatus(encoding, RPC_CODES[status] ?? 2, message));
}

async function handleOtlp(req: IncomingMessage, res: ServerResponse, signal: OtlpSignal, handlers: ReceiverHandlers, limits: OtlpLimits): Promise<void> {
  const encoding = encodingOf(req.headers['content-type']);
  if (!encoding) {
    res.writeHead(415, { 'content-type': 'text/plain' });
    res.end('use application/x-protobuf or application/json');
    req.resume();
    return;
  }
  const raw = await readBody(req, limits.maxBodyBytes);
  if (raw === 'too_large') return sendStatus(res, 413, encoding, `the body exceeds ${limits.maxBodyBytes} bytes`);
  let decoded: OtlpRequest;
  try {
    const body = decompressBody(raw, req.headers['content-encoding'], limits.maxBodyBytes);
    // protobuf through the direct decoder, as the hub: a value nested too deep or invalid UTF-8
    // costs that value (trimmed, repaired), not every record in the batch
    decoded = encoding === 'protobuf' ? decodeProtobufDirect(signal, body, limits).request : await decodeOtlpRequest(signal, body, encoding, limits);
  } catch (e) {
    if (!isSfError(e) && (e as { code?: string }).code === undefined) throw e;
    const code = (e as { code: string }).code;
    const status = code === 'SF_E_LIMIT' ? 413 : code === 'SF_E_MEDIA_TYPE' ? 415 : 400;
    return sendStatus(res, status, encoding, (e as Error).message);
  }
  try {
    await handlers.otlp(decoded);
  } catch (e) {
    // OTLP/HTTP: 429 and 503 with Retry-After make the exporter retry the same request later
    if (isSfError(e, 'SF_E_RATE_LIMIT')) return sendStatus(res, 429, encoding, e.message, (e.data as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? 1);
    return sendStatus(res, 503, encoding, `the observer could not store the request: ${(e as Error).message}`, 5);
  }
  res.writeHead(200, { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' });
  res.end(await encodeExportResponse(signal, encoding));
}

async function handleJson(req: IncomingMessage, res: ServerResponse, limits: OtlpLimits, use: (items: unknown[]) => Promise<unknown>): Promise<void> {
  // a web page can POST text/plain without asking first; application/json needs a CORS preflight,
  // which this server never grants
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    return sendJson(res, 415, { error: 'send the events as Content-Type: application/json', code: 'SF_E_MEDIA_TYPE' });
  }
  const raw = await readBody(req, Math.min(limits.maxBodyBytes, 1024 * 1024));
  if (raw === 'too_large') return sendJson(res, 413, { error: 'body too large' });
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    return sendJson(res, 400, { error: 'the body is not JSON' });
  }
  const items = Array.isArray(body) ? body : body && typeof body === 'object' && Array.isArray((body as { events?: unknown }).events) ? (body as { events: unknown[] }).events : [body];
  sendJson(res, 200, await use(items));
}

/** The receiver's connection limits: local exporters send a batch in well under a second. */
export const RECEIVER_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 256,
};

/** Starts the receiver on `host:port` (port 0: any free port). */
export function startReceiver(
  port: number,
  handlers: ReceiverHandlers,
  limits: OtlpLimits = DEFAULT_OTLP_LIMITS,
  host = '127.0.0.1',
  connections: ConnectionLimits = RECEIVER_CONNECTION_LIMITS,
): Promise<Receiver> {
  const server = createServer(serverOptionsFor(connections), (req, res) => {
    const refusal = browserRequestRefusal({ host: req.headers.host, origin: req.headers.origin }, host);
    if (refusal) return sendJson(res, refusal.status, { error: refusal.message, code: refusal.code });
    const path = (req.url ?? '/').split('?')[0];
    const signal = SIGNALS[path];
    const work = (async () => {
      if (signal) {
        if (req.method !== 'POST') {
          res.writeHead(405, { allow: 'POST' });
          res.end();
          return;
        }
        return handleOtlp(req, res, signal, handlers, limits);
      }
      if (path === '/forge/v1/events' && req.method === 'POST') return handleJson(req, res, limits, (items) => handlers.pluginEvents(items));
      if (path === '/forge/v1/messages' && req.method === 'POST') return handleJson(req, res, limits, (items) => handlers.messages(items));
      if (path === '/healthz' && req.method === 'GET') return sendJson(res, 200, handlers.health());
      res.writeHead(404);
      res.end();
    })();
    work.catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, isSfError(e) ? httpStatusFor(e.code) : 500, { error: (e as Error).message });
      else res.end();
    });
  });
  server.maxConnections = connections.maxConnections;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      resolve({
        port: actual,
        url: `http://${host}:${actual}`,
        close: () => new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}
