import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { gzipSync } from 'node:zlib';
import { RETRY_STATUSES, retryAfterMs as parseRetryAfter } from '../runtime/fetch-retry.js';
import { decodeExportResponse, type PartialSuccess } from '../telemetry/otlp/encode.js';
import type { OtlpSignal } from '../telemetry/otlp/types.js';

/**
 * One OTLP/HTTP POST with the spec's retry semantics: 2xx is success (with any partial_success),
 * 429/502/503/504 and network errors are retryable (honouring Retry-After), every other status is
 * permanent. Responses are read up to 64 KiB and every request has a deadline on the whole
 * exchange, not only an idle timeout (CVE-2026-44967 class): a destination that trickles its
 * response a byte at a time is never idle, and must not hold its delivery worker for good.
 */

export type SendResult =
  | { kind: 'ok'; status: number; partial?: PartialSuccess }
  | { kind: 'retry'; status?: number; retryAfterMs?: number; error: string }
  | { kind: 'fail'; status: number; error: string };

export interface SendOptions {
  url: string;
  body: Uint8Array;
  contentType: 'application/x-protobuf' | 'application/json';
  headers: Record<string, string>;
  /** deadline for the whole exchange, connect to last response byte (default 10 s) */
  timeoutMs?: number;
  signal?: OtlpSignal;
  /** ends the attempt early (a stopping observer); it resolves as retryable */
  abort?: AbortSignal;
}

const MAX_RESPONSE = 64 * 1024;
/** A destination's Retry-After (seconds or HTTP date) in ms, capped at 5 minutes. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const ms = parseRetryAfter(value, now);
  return ms === undefined ? undefined : Math.min(ms, 300_000);
}

/** POSTs an OTLP body; never throws. */
export function sendOtlp(opts: SendOptions): Promise<SendResult> {
  return new Promise((resolveOnce) => {
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch (e) {
      resolveOnce({ kind: 'fail', status: 0, error: `invalid URL: ${(e as Error).message}` });
      return;
    }
    const timeoutMs = opts.timeoutMs ?? 10_000;
    let settled = false;
    const resolve = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      opts.abort?.removeEventListener('abort', onAbort);
      resolveOnce(r);
    };
    // ends the exchange wherever it is (connecting, sending, reading a trickling body)
    const giveUp = (error: string) => {
      resolve({ kind: 'retry', error });
      req.destroy(new Error(error));
    };
    const deadline = setTimeout(() => giveUp(`no complete response within ${timeoutMs} ms`), timeoutMs);
    const onAbort = () => giveUp('the observer is stopping');
    const compress = opts.body.byteLength > 1024;
    const body = compress ? gzipSync(opts.body) : opts.body;
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: {
        ...opts.headers,
        'content-type': opts.contentType,
        'content-length': String(body.byteLength),
        'user-agent': 'forge-sf-observer',
        ...(compress ? { 'content-encoding': 'gzip' } : {}),
      },
      timeout: timeoutMs,
    });
    if (opts.abort?.aborted) onAbort();
    else opts.abort?.addEventListener('abort', onAbort);
    req.on('timeout', () => giveUp(`no response within ${timeoutMs} ms`));
    req.on('error', (e) => resolve({ kind: 'retry', error: e.message }));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let complete = false;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_RESPONSE) chunks.push(c);
        else res.destroy();
      });
      const done = async () => {
        if (settled) return;
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          const type = String(res.headers['content-type'] ?? '');
          let partial: PartialSuccess | undefined;
          if (complete && opts.signal && size <= MAX_RESPONSE && (type.startsWith('application/x-protobuf') || type.startsWith('application/json'))) {
            partial = await decodeExportResponse(opts.signal, type.startsWith('application/json') ? 'json' : 'protobuf', Buffer.concat(chunks)).catch(() => undefined);
          }
          resolve({ kind: 'ok', status, ...(partial ? { partial } : {}) });
        } else if (RETRY_STATUSES.has(status)) {
          resolve({ kind: 'retry', status, error: `HTTP ${status}`, retryAfterMs: retryAfterMs(res.headers['retry-after'] as string | undefined) });
        } else resolve({ kind: 'fail', status, error: `HTTP ${status}` });
      };
      res.on('end', () => {
        complete = true;
        void done();
      });
      res.on('close', () => void done());
      res.on('error', (e) => resolve({ kind: 'retry', error: e.message }));
    });
    req.end(body);
  });
}
