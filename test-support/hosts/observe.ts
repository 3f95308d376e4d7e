import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeOtlpRequest, encodingOf } from '../../core/telemetry/otlp/decode.js';
import type { OtlpLogRecord, OtlpRequest, OtlpSignal } from '../../core/telemetry/otlp/types.js';
import { sfBin } from '../index.js';

/**
 * Observability pieces of the real-host harness: a generic OTLP/HTTP receiver (a second
 * destination next to the observer's local file), the observer daemon as a child process of the
 * built CLI, and readers that flatten OTLP log records for assertions.
 */

/** A flattened log record: event name, attributes, resource attributes. */
export interface FlatEvent {
  name: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  traceId?: string;
}

function flatten(req: OtlpRequest): FlatEvent[] {
  if (req.signal !== 'logs') return [];
  const out: FlatEvent[] = [];
  for (const r of req.resources) {
    for (const s of r.scopes) {
      for (const rec of s.items as OtlpLogRecord[]) {
        out.push({ name: rec.eventName ?? String(rec.attributes['event.name'] ?? ''), attributes: rec.attributes, resource: r.resource.attributes, ...(rec.traceId ? { traceId: rec.traceId } : {}) });
      }
    }
  }
  return out;
}

export interface OtlpReceiver {
  url: string;
  /** every decoded request, in arrival order */
  requests: OtlpRequest[];
  /** raw bodies as received (protobuf or JSON bytes), for content greps */
  raw: Buffer[];
  events(): FlatEvent[];
  close(): Promise<void>;
}

const SIGNALS: Record<string, OtlpSignal> = { '/v1/logs': 'logs', '/v1/traces': 'traces', '/v1/metrics': 'metrics' };

/** An OTLP/HTTP receiver on 127.0.0.1 (protobuf and JSON, gzip), answering 200 with an empty response. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpRequest[] = [];
  const raw: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const signal = SIGNALS[(req.url ?? '').split('?')[0]];
      const encoding = encodingOf(req.headers['content-type']);
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (!signal || !encoding) {
        res.writeHead(404);
        res.end();
        return;
      }
      raw.push(body);
      decodeOtlpRequest(signal, body, encoding).then((r) => {
        requests.push(r);
        res.writeHead(200, { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' });
        res.end(encoding === 'json' ? '{}' : '');
      }, () => {
        res.writeHead(400);
        res.end();
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests, raw,
    events: () => requests.flatMap(flatten),
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** The events in an OTLP JSON-lines file written by the observer's file destination. */
export async function fileEvents(path: string): Promise<{ events: FlatEvent[]; text: string }> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const events: FlatEvent[] = [];
  for (const line of text.split('\n').filter(Boolean)) {
    const o = JSON.parse(line) as Record<string, unknown>;
    const signal: OtlpSignal = o.resourceLogs ? 'logs' : o.resourceSpans ? 'traces' : 'metrics';
    events.push(...flatten(await decodeOtlpRequest(signal, Buffer.from(line), 'json')));
  }
  return { events, text };
}

/** A free TCP port on 127.0.0.1 (bound and released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface DaemonProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for a clean exit (the observer flushes its queue on the way out) */
  stop(): Promise<number | null>;
}

/** Starts `sf observe daemon` (built CLI) and waits until it listens. */
export async function startObserverDaemon(env: Record<string, string>, timeoutMs = 20_000): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [sfBin, 'observe', 'daemon'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the observer did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = () => {
      if (/listening on/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the observer exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls `check` every 200 ms until it returns a value or `timeoutMs` passes (then throws with `what`). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
