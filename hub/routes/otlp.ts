import { Hono, type Context } from 'hono';
import { fromSystemError, httpStatusFor, isSfError, SfError } from '../../core/errors/index.js';
import { encodeExportResponse, encodeRpcStatus, encodingOf, type OtlpEncoding, type OtlpSignal } from '../../core/telemetry/otlp/index.js';
import type { HubEnv } from '../auth/principal.js';
import { errorHeaders } from '../errors.js';
import { verifySecret } from '../auth/tokens.js';
import { readOtlpBody } from '../ingest/body.js';
import type { HubStorage } from '../storage/ports.js';
import type { TelemetryService } from '../telemetry/service.js';

/**
 * OTLP/HTTP ingest: POST /v1/logs, /v1/traces, /v1/metrics (protobuf or OTLP/JSON, optionally
 * gzip). Mounted before the hub's JSON error funnel because OTLP errors have their own shape: a
 * google.rpc.Status body in the request's content type, with Retry-After on 429/503.
 */

/** google.rpc.Code for an HTTP status of an OTLP failure. */
const GRPC_CODE: Record<number, number> = { 400: 3, 401: 16, 403: 7, 405: 12, 413: 8, 415: 3, 429: 8, 500: 13, 503: 14 };
const SIGNALS: OtlpSignal[] = ['logs', 'traces', 'metrics'];

function contentTypeOf(c: Context): { encoding?: OtlpEncoding; type: string } {
  const raw = c.req.header('content-type');
  const encoding = encodingOf(raw);
  return { encoding, type: encoding ? (raw ?? '').split(';')[0].trim().toLowerCase() : 'application/json' };
}

async function failure(c: Context, err: unknown, encoding: OtlpEncoding, type: string, statusOverride?: number): Promise<Response> {
  let status = 500;
  let message = 'internal error';
  const headers: Record<string, string> = { 'content-type': type };
  if (isSfError(err)) {
    status = httpStatusFor(err.code);
    message = err.hint ? `${err.message} (${err.hint})` : err.message;
    Object.assign(headers, errorHeaders(err, c.req.header('authorization') !== undefined));
  } else if (fromSystemError(err)) {
    // the disk or the system failed, never "bad data": answer retryable (reliability-anchors #61)
    console.error('hub OTLP ingest failed:', err);
    status = 503;
    message = 'the hub could not store the telemetry; retry later';
    headers['retry-after'] = '5';
  } else {
    // a bug in the hub: OTLP clients do not retry a 500, so one bad batch cannot come back forever
    console.error('hub OTLP ingest failed (internal error):', err);
  }
  if (statusOverride) status = statusOverride;
  const body = await encodeRpcStatus(encoding, GRPC_CODE[status] ?? 2, message);
  return c.body(new Uint8Array(body), status as 400, headers);
}

function authenticateDevice(c: Context, storage: HubStorage) {
  const header = c.req.header('authorization');
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match) throw new SfError('SF_E_AUTH', 'OTLP export without a credential', { hint: 'send Authorization: Bearer <device credential or PAT with telemetry:write>' });
  const token = verifySecret(storage.tokens, match[1]);
  const user = token ? storage.accounts.getUser(token.userId) : undefined;
  if (!token || !user) throw new SfError('SF_E_AUTH', 'the credential is invalid, expired or revoked', { hint: 'run `sf login` again or rotate the device credential' });
  if (!(token.scopes.includes('telemetry:write') || (token.kind === 'pat' && user.admin && token.scopes.includes('admin')))) {
    throw new SfError('SF_E_FORBIDDEN', 'the credential lacks the telemetry:write scope', { hint: 'use a device credential or a PAT with telemetry:write', data: { scope: 'telemetry:write' } });
  }
  return { token, user };
}

export function otlpRoutes(telemetry: TelemetryService, storage: HubStorage): Hono<HubEnv> {
  const app = new Hono<HubEnv>();
  for (const signal of SIGNALS) {
    app.post(`/v1/${signal}`, async (c) => {
      const { encoding, type } = contentTypeOf(c);
      try {
        if (!encoding) {
          throw new SfError('SF_E_MEDIA_TYPE', `Content-Type "${c.req.header('content-type') ?? ''}" is not an OTLP encoding`, {
            hint: 'send application/x-protobuf or application/json',
          });
        }
        const { token, user } = authenticateDevice(c, storage);
        const body = await readOtlpBody(c.req.raw, telemetry.limits.maxRawBytes);
        const result = await telemetry.ingest({ signal, encoding, contentEncoding: c.req.header('content-encoding'), body, user, token });
        const out = await encodeExportResponse(signal, encoding, result.partial);
        return c.body(new Uint8Array(out), 200, { 'content-type': type });
      } catch (e) {
        return failure(c, e, encoding ?? 'json', type);
      }
    });
    app.all(`/v1/${signal}`, async (c) => {
      const { encoding, type } = contentTypeOf(c);
      c.header('allow', 'POST');
      return failure(c, new SfError('SF_E_USAGE', `${c.req.method} is not allowed on /v1/${signal}`, { hint: 'use POST' }), encoding ?? 'json', type, 405);
    });
  }
  return app;
}
