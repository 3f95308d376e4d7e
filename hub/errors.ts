import type { Context } from 'hono';
import { fromSystemError, httpStatusFor, isSfError, type SfError } from '../core/errors/index.js';

/**
 * The hub's single error funnel: SfError codes map to HTTP statuses through core/errors/codes.ts
 * (two made more precise by statusOf);
 * a full disk is a retryable 503; anything else is a 500 without internals. Body: `{ error: { code, message, hint?, location? } }`.
 */
export function onHubError(err: Error, c: Context): Response {
  if (isSfError(err)) {
    const status = statusOf(err);
    const headers: Record<string, string> = {};
    Object.assign(headers, errorHeaders(err, c.req.header('authorization') !== undefined));
    return c.json({ error: err.toJSON() }, status as 400, headers);
  }
  // out of disk space: retryable for every client (a 500 tells OTLP exporters to drop the data), and without the hub's paths
  if (fromSystemError(err)?.code === 'SF_E_DISK_FULL') {
    return c.json({ error: { code: 'SF_E_DISK_FULL', message: 'the hub is out of disk space; retry later', hint: 'retry after the Retry-After delay' } }, 503, { 'retry-after': '60' });
  }
  console.error('hub internal error:', err);
  return c.json({ error: { code: 'SF_E_INTERNAL', message: 'internal error' } }, 500);
}

/**
 * The HTTP status of `err`: its code's (core/errors/codes.ts), or a more precise one HTTP names for
 * it: 414 URI Too Long (hub/app.ts), 416 Range Not Satisfiable (hub/routes/send-blob.ts).
 */
function statusOf(err: SfError): number {
  if (err.code === 'SF_E_LIMIT' && err.data?.limit === 'maxUrlBytes') return 414;
  if (err.code === 'SF_E_USAGE' && typeof err.data?.contentRange === 'string') return 416;
  return httpStatusFor(err.code);
}

/**
 * The headers an error response carries besides its body: the Bearer challenge of RFC 6750 §3 (an
 * `error` only when a credential was sent: invalid_token for a 401, insufficient_scope for a 403
 * that names the scope), Retry-After, Accept-Encoding for an unsupported content coding
 * (RFC 9110 §12.5.3), and Content-Range for an unsatisfiable range.
 */
export function errorHeaders(err: SfError, sentCredentials: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (err.code === 'SF_E_AUTH') headers['www-authenticate'] = `Bearer realm="forge-hub"${sentCredentials ? ', error="invalid_token"' : ''}`;
  if (err.code === 'SF_E_FORBIDDEN' && typeof err.data?.scope === 'string') headers['www-authenticate'] = `Bearer realm="forge-hub", error="insufficient_scope", scope="${err.data.scope}"`;
  const retryAfter = err.data?.retryAfterSeconds;
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  if (typeof err.data?.acceptEncoding === 'string') headers['accept-encoding'] = err.data.acceptEncoding;
  // a 416 says how long the representation is (RFC 9110 §14.4)
  if (typeof err.data?.contentRange === 'string') headers['content-range'] = err.data.contentRange;
  return headers;
}
