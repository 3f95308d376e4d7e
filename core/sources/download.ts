import { SfError } from '../errors/index.js';
import { brokenConnection, markTransient, RETRY_STATUSES, retryAfterMs, withRetries } from '../runtime/fetch-retry.js';
import { readCappedResponse } from '../runtime/read-capped-response.js';
import { redactText, redactUrl, stripCredentials, urlCredentials } from './redact.js';

export interface DownloadOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  maxRedirects: number;
  maxBytes: number;
}

export interface Download {
  bytes: Buffer;
  /** the URL that answered, credential-free */
  finalUrl: string;
  contentType?: string;
}

/**
 * GET `url` with a whole-request timeout, a byte limit enforced while streaming, and redirects
 * followed by hand so their number is capped and credentials never cross origins. Credentials in
 * the URL become a Basic Authorization header (fetch refuses them in URLs) and never appear in
 * errors: SF_E_FETCH (network, status, timeout, redirects) and SF_E_LIMIT name the redacted URL.
 * A connection that broke, or a server that answered "overloaded" (429, 502-504), is asked again
 * from the start (core/runtime/fetch-retry.ts), within the same overall timeout.
 */
export async function download(url: string, options: DownloadOptions): Promise<Download> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  return withRetries(() => downloadOnce(url, options, signal));
}

async function downloadOnce(url: string, options: DownloadOptions, signal: AbortSignal): Promise<Download> {
  const shown = redactUrl(url);
  const creds = urlCredentials(url);
  const headers: Record<string, string> = { accept: '*/*' };
  if (creds) headers.authorization = 'Basic ' + Buffer.from(`${creds.username}:${creds.password}`).toString('base64');
  let current = stripCredentials(url);

  for (let hops = 0; ; hops++) {
    const res = await request(options.fetch, current, headers, signal, shown, options.timeoutMs, creds?.password);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      if (hops >= options.maxRedirects) {
        throw new SfError('SF_E_FETCH', `GET ${shown} redirected more than ${options.maxRedirects} times`, {
          hint: 'use the final URL of the file directly',
          data: { url: shown },
        });
      }
      const next = new URL(location, current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new SfError('SF_E_FETCH', `GET ${shown} redirected to an unsupported scheme ${next.protocol}`, {
          hint: 'only http and https redirects are followed; use the final https:// URL of the archive or SKILL.md',
          data: { url: shown },
        });
      }
      // credentials are scoped to the origin that was given them
      if (next.origin !== new URL(current).origin) delete headers.authorization;
      next.username = '';
      next.password = '';
      current = next.toString();
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      const failed = new SfError('SF_E_FETCH', `GET ${shown} failed: HTTP ${res.status} ${res.statusText}`.trim(), {
        hint: res.status === 401 || res.status === 403 ? 'check the credentials for this URL' : 'check that the URL is correct and reachable',
        data: { url: shown, status: res.status },
      });
      throw RETRY_STATUSES.has(res.status) ? markTransient(failed, retryAfterMs(res.headers.get('retry-after'))) : failed;
    }
    const bytes = await readLimited(res, options.maxBytes, shown, options.timeoutMs);
    return { bytes, finalUrl: redactUrl(current), contentType: res.headers.get('content-type') ?? undefined };
  }
}

async function request(
  fetchFn: typeof fetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  shown: string,
  timeoutMs: number,
  secret: string | undefined,
): Promise<Response> {
  try {
    return await fetchFn(url, { method: 'GET', headers, redirect: 'manual', signal });
  } catch (err) {
    throw fetchFailure(err, shown, timeoutMs, secret);
  }
}

function fetchFailure(err: unknown, shown: string, timeoutMs: number, secret?: string): SfError {
  if (err instanceof SfError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new SfError('SF_E_FETCH', `GET ${shown} timed out after ${timeoutMs} ms`, {
      hint: 'check that the server is reachable and answering, then run the command again',
      data: { url: shown },
    });
  }
  const cause = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  const failed = new SfError('SF_E_FETCH', `GET ${shown} failed: ${redactText(cause, [secret])}`, {
    hint: 'check the URL and your network connection',
    data: { url: shown },
  });
  return brokenConnection(err) ? markTransient(failed) : failed;
}

async function readLimited(res: Response, maxBytes: number, shown: string, timeoutMs: number): Promise<Buffer> {
  const tooBig = () =>
    new SfError('SF_E_LIMIT', `${shown} is larger than the ${maxBytes}-byte limit`, {
      hint: 'a SKIT download must stay under the limit; publish a smaller SKIT, or download and inspect the file before installing it from a local path',
      data: { url: shown, limit: maxBytes },
    });
  try {
    return await readCappedResponse(res, maxBytes, tooBig);
  } catch (err) {
    throw fetchFailure(err, shown, timeoutMs);
  }
}
