import { SfError, type ErrorCode } from '../../errors/index.js';
import { waitBeforeNext, waitForRefusal, type WaitAdvice } from './rate-limit.js';
import { readBody } from './read-body.js';
import { redactSecrets } from './redact.js';

export interface RequestPolicy {
  token?: string;
  /** `Authorization: {scheme} {token}`: `token` for GitHub and Gitea, `Bearer` for GitLab (default token) */
  authScheme?: 'token' | 'Bearer';
  /** an API root of the platform, for hints (default https://api.github.com) */
  apiExample?: string;
  /** longest single wait for a rate limit before giving up (ms) */
  maxWaitMs: number;
  /** attempts per request for rate limits and 5xx */
  maxAttempts: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  onWait?: (advice: WaitAdvice) => void;
  /** deadline of one request, headers and body together (ms) */
  timeoutMs: number;
  /** largest response body read (bytes) */
  maxBytes: number;
}

/**
 * 60 s per request, headers and body together: a server that trickles a byte at a time would
 * otherwise hold `sf forge fetch` forever. Rate-limit waits between attempts do not count.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * 32 MiB per response: a full page (100 comments at GitHub's 65,536-character maximum) is a few MB,
 * and an unbounded body (a 4 GB answer aborted V8) must fail as a limit, not take the process down.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Enough of an error body for its message; the rest is not read. */
const MAX_ERROR_BYTES = 64 * 1024;

export interface JsonResponse {
  url: string;
  json: unknown;
  headers: Headers;
}

const MAX_REDIRECTS = 5;

/**
 * The message of an error body: `{"message": "..."}` (GitHub, Gitea, GitLab), GitLab's
 * `{"message": {...}}` (validation, some rate limits) and `{"error", "error_description"}` (OAuth,
 * unknown routes); else the raw text.
 */
function messageOf(text: string): string {
  let parsed: { message?: unknown; error?: unknown; error_description?: unknown } | null;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return text; // not JSON: use the raw text
  }
  if (typeof parsed?.message === 'string') return parsed.message;
  if (typeof parsed?.error_description === 'string') return typeof parsed.error === 'string' ? `${parsed.error}: ${parsed.error_description}` : parsed.error_description;
  if (typeof parsed?.error === 'string') return parsed.error;
  return parsed?.message !== undefined ? JSON.stringify(parsed.message) : text;
}

/** Short, sanitized server message, credentials removed. */
function serverMessage(text: string, token: string | undefined): string {
  const message = messageOf(text);
  // redacted before it is cut, so a cut cannot leave part of a token behind
  return redactSecrets(message.replace(/[\u0000-\u001f\u007f]/g, ' '), token).slice(0, 200).trim();
}

const apiExample = (policy: RequestPolicy) => policy.apiExample ?? 'https://api.github.com';

function statusError(status: number, url: string, message: string, policy: RequestPolicy): SfError {
  const table: Record<number, [ErrorCode, string]> = {
    401: ['SF_E_AUTH', 'set a valid token in FORGE_TOKEN (or choose the variable with --token-env)'],
    403: ['SF_E_FORBIDDEN', 'the token lacks read access to this repository’s issues'],
    404: ['SF_E_NOT_FOUND', 'check --repo and --issue; a private repository also needs a token'],
  };
  const [code, hint] = table[status] ?? (status >= 500 ? ['SF_E_UNAVAILABLE', 'the server failed; retry later'] : ['SF_E_FETCH', `check --api: it must be a REST API root such as ${apiExample(policy)}`]);
  return new SfError(code, `GET ${url} failed with HTTP ${status}${message ? `: ${message}` : ''}`, { hint, data: { status } });
}

function timeoutError(url: string, policy: RequestPolicy, cause: unknown): SfError {
  return new SfError('SF_E_FETCH', `GET ${url} did not complete within ${policy.timeoutMs / 1000} s`, {
    hint: 'the server stalled or is very slow; retry later (the deadline covers the headers and the whole body of one request)',
    cause,
  });
}

/**
 * GET a JSON document from a forge's REST API. Honors rate-limit headers with a bounded wait,
 * retries 5xx a bounded number of times, follows same-origin redirects only (the token must never
 * travel to another host), and never puts the token in a message. Each request has a deadline and
 * a body size limit.
 */
export async function getJson(url: string, policy: RequestPolicy): Promise<JsonResponse> {
  const origin = new URL(url).origin;
  let target = url;
  let redirects = 0;
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    const signal = AbortSignal.timeout(policy.timeoutMs);
    try {
      res = await fetch(target, {
        signal,
        redirect: 'manual',
        headers: {
          accept: 'application/vnd.github+json, application/json',
          'user-agent': 'forge-sf',
          ...(policy.token ? { authorization: `${policy.authScheme ?? 'token'} ${policy.token}` } : {}),
        },
      });
    } catch (e) {
      if (signal.aborted) throw timeoutError(target, policy, e);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new SfError('SF_E_FETCH', `could not reach ${origin}: ${redactSecrets(cause?.code ?? cause?.message ?? String(e), policy.token)}`, { hint: 'check --api and your network', cause: e });
    }
    const body = (limit: number, truncate: boolean) =>
      readBody(res, { limit, truncate, what: `GET ${target}` }).catch((e: unknown) => {
        throw signal.aborted ? timeoutError(target, policy, e) : e;
      });
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      const next = new URL(res.headers.get('location')!, target);
      await res.body?.cancel();
      if (next.origin !== origin) throw new SfError('SF_E_FETCH', `${target} redirects to another host (${next.origin}); not following it`, { hint: 'pass that host as --api if you trust it' });
      if (++redirects > MAX_REDIRECTS) throw new SfError('SF_E_FETCH', `too many redirects from ${url}`, { hint: 'check --api' });
      target = next.toString();
      attempt--;
      continue;
    }
    if (res.ok) {
      const text = await body(policy.maxBytes, false);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new SfError('SF_E_FETCH', `GET ${target} did not return JSON`, { hint: `check --api: it must be a REST API root such as ${apiExample(policy)}`, cause: e });
      }
      return { url: target, json, headers: res.headers };
    }
    const message = serverMessage(await body(MAX_ERROR_BYTES, true), policy.token);
    const advice = waitForRefusal(res.status, res.headers, policy.now(), message) ?? (res.status >= 500 ? { ms: 1000 * attempt, reason: `HTTP ${res.status}`, cause: 'server-error' as const } : null);
    if (!advice) throw statusError(res.status, target, message, policy);
    // a server error is not a rate limit, however long its back-off: the same error as the last attempt's
    if (advice.ms > policy.maxWaitMs && advice.cause === 'server-error') throw statusError(res.status, target, message, policy);
    if (advice.ms > policy.maxWaitMs) {
      throw new SfError('SF_E_RATE_LIMIT', `rate limited by ${origin}: must wait ${Math.ceil(advice.ms / 1000)} s (${advice.reason})`, {
        hint: `retry after ${new Date(policy.now() + advice.ms).toISOString()}, or allow a longer wait with --max-wait (now ${Math.round(policy.maxWaitMs / 1000)} s)`,
        data: { waitMs: advice.ms },
      });
    }
    if (attempt >= policy.maxAttempts) {
      if (res.status >= 500) throw statusError(res.status, target, message, policy);
      throw new SfError('SF_E_RATE_LIMIT', `rate limited by ${origin} after ${attempt} attempts`, { hint: 'retry later' });
    }
    policy.onWait?.(advice);
    await policy.sleep(advice.ms);
  }
}

/** Waits before the next request when the last response used up the quota (bounded; otherwise the next request reports it). */
export async function pace(headers: Headers, policy: RequestPolicy): Promise<void> {
  const advice = waitBeforeNext(headers, policy.now());
  if (advice && advice.ms > 0 && advice.ms <= policy.maxWaitMs) {
    policy.onWait?.(advice);
    await policy.sleep(advice.ms);
  }
}
