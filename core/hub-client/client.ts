import { ERROR_CODES, SfError, type ErrorCode } from '../errors/index.js';
import type { HubTarget } from './credentials.js';
import type { Shape } from './shape.js';
import { bearerToken, withoutSecret, type TokenSource } from './bearer.js';
import { assertCredentialTransport } from './transport.js';
import { brokenConnection, fetchRetries, markTransient, RETRY_STATUSES, retryAfterMs, withRetries } from '../runtime/fetch-retry.js';

/** Defaults for talking to a hub: generous for archives, bounded so a stuck server cannot hang a command. */
export const HUB_TIMEOUT_MS = 60_000;
export const MAX_HUB_DOWNLOAD_BYTES = 64 * 1024 * 1024;
const MAX_JSON_BYTES = 16 * 1024 * 1024;

export interface HubClientOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** for SF_HUB_ALLOW_HTTP (default: process.env) */
  env?: NodeJS.ProcessEnv;
}

interface HubErrorBody {
  error?: { code?: string; message?: string; hint?: string; data?: Record<string, unknown> };
}

/**
 * A minimal HTTP client for one hub. The token goes only into the Authorization header of
 * requests to that hub's origin, never over plain http beyond this machine (transport.ts); error
 * messages never contain it. Hub errors come back as
 * SfErrors with the hub's own code, message, hint and data.
 */
export class HubClient {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly target: HubTarget,
    options: HubClientOptions = {},
  ) {
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? HUB_TIMEOUT_MS;
    this.env = options.env ?? process.env;
  }

  /** Absolute URL of a hub path (`/api/v1/...`). */
  url(path: string): string {
    return `${this.target.url}${path}`;
  }

  /**
   * Sends a request; throws the hub's error for any non-2xx status (304 is passed through). A
   * token that cannot be a bearer credential is SF_E_AUTH before anything is sent. A GET whose
   * connection broke or that the hub answered "overloaded" is sent again (core/runtime/fetch-retry.ts).
   */
  async request(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
    return method === 'GET' ? withRetries(() => this.send(method, path, init), this.retries()) : this.send(method, path, init);
  }

  /** SF_FETCH_RETRIES of this client's environment. */
  private retries(): number {
    return fetchRetries(this.env);
  }

  /** One request, no retry (see request). */
  private async send(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    const token = this.target.token ? bearerToken(this.target.token, this.target.tokenSource, this.target.url) : undefined;
    if (token) {
      assertCredentialTransport(this.target.url, this.env);
      headers.authorization = `Bearer ${token}`;
    }
    let res: Response;
    try {
      res = await this.fetchImpl(this.url(path), {
        method,
        headers,
        body: init.body,
        redirect: 'error', // never forward the token anywhere else
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (e) {
      const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      const shown = withoutSecret(reason, token);
      // an error that quoted the token is not kept as the cause either
      const failure = new SfError('SF_E_FETCH', `could not reach the hub at ${this.target.url}: ${shown}`, {
        hint: 'check the URL and that the hub is running (`sf hub serve`)',
        ...(shown === reason ? { cause: e } : {}),
      });
      throw brokenConnection(e) ? markTransient(failure) : failure;
    }
    if (res.ok || res.status === 304) return res;
    throw await hubError(res, this.target.url, path, token ? this.target.tokenSource : undefined);
  }

  /** GETs a JSON answer that must fit `shape` (sent again, body and all, when the connection broke). */
  async getJson<T>(path: string, shape: Shape): Promise<T> {
    return withRetries(async () => this.readJson<T>(await this.send('GET', path), 'GET', path, shape), this.retries());
  }

  /**
   * The JSON body of the answer to `method path`, checked against `shape`: a body that is not
   * JSON (a proxy's HTML page) or lacks what the command reads is SF_E_FETCH naming the hub and
   * the path, never a TypeError or a printed "undefined".
   */
  async readJson<T>(res: Response, method: string, path: string, shape: Shape): Promise<T> {
    const bytes = await readLimited(res, MAX_JSON_BYTES, this.url(path));
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw this.unexpected(method, path, 'a body that is not JSON');
    }
    const problem = shape(body, '');
    if (problem) throw this.unexpected(method, path, `JSON of another shape (${problem})`);
    return body as T;
  }

  private unexpected(method: string, path: string, what: string): SfError {
    return new SfError('SF_E_FETCH', `the hub at ${this.target.url} answered ${method} ${path} with ${what}`, {
      hint: `check that ${this.target.url} is a Forge hub of a compatible version (\`sf --version\`, the hub's logs); a proxy or login page in front of it answers with other documents`,
      data: { url: this.url(path) },
    });
  }

  /**
   * GETs bytes with a hard size limit. A download whose connection broke is resumed where it
   * stopped (Range + If-Range on the strong ETag, hub/routes/send-blob.ts) when the hub offers
   * ranges, else fetched again whole; callers verify the bytes against their hashes either way.
   */
  async download(path: string, maxBytes = MAX_HUB_DOWNLOAD_BYTES): Promise<Buffer> {
    const shown = this.url(path);
    const parts: Buffer[] = [];
    let have = 0;
    let validator: string | undefined;
    return withRetries(async () => {
      const resume = have > 0 && validator !== undefined;
      const res = await this.send('GET', path, { headers: { accept: '*/*', ...(resume ? { range: `bytes=${have}-`, 'if-range': validator! } : {}) } });
      if (res.status !== 206 || !resume || !rangeStartsAt(res, have)) {
        // the whole representation (the hub ignored the range, or no range was asked for)
        if (res.status === 206) throw new SfError('SF_E_FETCH', `the hub at ${this.target.url} answered GET ${path} with a part that does not continue the download`, { hint: 'run the command again' });
        parts.length = 0;
        have = 0;
      }
      const etag = res.headers.get('etag');
      validator = res.headers.get('accept-ranges') === 'bytes' && etag && !etag.startsWith('W/') ? etag : undefined;
      await readInto(res, parts, maxBytes - have, shown, maxBytes, (n) => (have += n));
      return Buffer.concat(parts, have);
    }, this.retries());
  }
}

/** True when a 206 answer's Content-Range starts at byte `at`. */
function rangeStartsAt(res: Response, at: number): boolean {
  return new RegExp(`^bytes ${at}-\\d+/\\d+$`).test(res.headers.get('content-range') ?? '');
}

/**
 * Streams a body into `parts` (at most `room` more bytes), counting through `got` as it goes so a
 * broken connection keeps what arrived. A body that stops early is a transient SF_E_FETCH.
 */
async function readInto(res: Response, parts: Buffer[], room: number, shown: string, max: number, got: (n: number) => void): Promise<void> {
  const tooBig = () => new SfError('SF_E_LIMIT', `${shown} is larger than ${max} bytes`, { hint: 'the download limit protects the disk; ask the hub operator' });
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > room) {
    await res.body?.cancel();
    throw tooBig();
  }
  if (!res.body) return;
  let taken = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      taken += chunk.byteLength;
      if (taken > room) throw tooBig();
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      got(chunk.byteLength);
    }
  } catch (e) {
    throw bodyFailure(e, shown);
  }
}

/** An error while a body streams: SfErrors as they are, a broken connection as a transient SF_E_FETCH. */
function bodyFailure(e: unknown, shown: string): unknown {
  if (e instanceof SfError) return e;
  const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
  const failure = new SfError('SF_E_FETCH', `the download of ${shown} stopped: ${reason}`, { hint: 'check your network connection and run the command again' });
  return brokenConnection(e) ? markTransient(failure) : failure;
}

/** Reads a response body, refusing more than `max` bytes (declared or streamed). */
export async function readLimited(res: Response, max: number, shown: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  await readInto(res, parts, max, shown, max, (n) => (total += n));
  return Buffer.concat(parts, total);
}

/** The hint for a hub error that brought none of its own (a proxy's page, a crashed handler). */
function fallbackHint(code: ErrorCode, status: number, hub: string): string {
  if (code === 'SF_E_AUTH') return `run \`sf login --hub ${hub}\` with a valid token`;
  if (code === 'SF_E_FORBIDDEN') return 'the token lacks the scope or the access this needs; ask the hub operator, or log in with another token';
  if (code === 'SF_E_NOT_FOUND') return 'check the id, version or URL; a private SKIT is visible to its owners only';
  if (status >= 500) return `the hub at ${hub} failed; retry later, and tell its operator (the hub's log has the cause) if it persists`;
  return `check that ${hub} is a Forge hub of a compatible version; it refused the request with HTTP ${status}`;
}

/**
 * The hub says "run `sf login` again" of a rejected credential; SF_HUB_TOKEN wins over the stored
 * login, so a stale one goes on failing after that: name the variable instead.
 */
function authHint(source: TokenSource | undefined): string | undefined {
  return source === 'SF_HUB_TOKEN' ? 'the rejected token came from SF_HUB_TOKEN, which takes precedence over the login `sf login` stored: set SF_HUB_TOKEN to a valid token, or unset it' : undefined;
}

async function hubError(res: Response, hub: string, path: string, tokenSource?: TokenSource): Promise<SfError> {
  let body: HubErrorBody = {};
  try {
    body = JSON.parse((await readLimited(res, 1024 * 1024, hub)).toString('utf8')) as HubErrorBody;
  } catch {
    body = {}; // not a hub error document (a proxy page?): fall back to the status below
  }
  const e = body.error ?? {};
  const known = typeof e.code === 'string' && e.code in ERROR_CODES;
  const code: ErrorCode = known ? (e.code as ErrorCode) : res.status === 401 ? 'SF_E_AUTH' : res.status === 403 ? 'SF_E_FORBIDDEN' : res.status === 404 ? 'SF_E_NOT_FOUND' : 'SF_E_FETCH';
  const message = typeof e.message === 'string' ? `hub: ${e.message}` : `the hub answered ${res.status} for ${path}`;
  const hint = (code === 'SF_E_AUTH' ? authHint(tokenSource) : undefined) ?? (typeof e.hint === 'string' ? e.hint : fallbackHint(code, res.status, hub));
  const error = new SfError(code, message, { hint, data: { status: res.status, ...(e.data ?? {}) } });
  return RETRY_STATUSES.has(res.status) ? markTransient(error, retryAfterMs(res.headers.get('retry-after'))) : error;
}
