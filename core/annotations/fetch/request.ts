import { SfError, type ErrorCode } from '../../errors/index.js';
import { waitBeforeNext, waitForRefusal, type WaitAdvice } from './rate-limit.js';

export interface RequestPolicy {
  token?: string;
  /** longest single wait for a rate limit before giving up (ms) */
  maxWaitMs: number;
  /** attempts per request for rate limits and 5xx */
  maxAttempts: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  onWait?: (advice: WaitAdvice) => void;
}

export interface JsonResponse {
  url: string;
  json: unknown;
  headers: Headers;
}

const MAX_REDIRECTS = 5;

/** Short, sanitized server message (GitHub/Gitea send {"message": "..."}). */
function serverMessage(text: string): string {
  let message = text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed?.message === 'string') message = parsed.message;
  } catch {
    message = text; // not JSON: use the raw text
  }
  return message.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200).trim();
}

function statusError(status: number, url: string, message: string): SfError {
  const table: Record<number, [ErrorCode, string]> = {
    401: ['SF_E_AUTH', 'set a valid token in FORGE_TOKEN (or choose the variable with --token-env)'],
    403: ['SF_E_FORBIDDEN', 'the token lacks read access to this repository’s issues'],
    404: ['SF_E_NOT_FOUND', 'check --repo and --issue; a private repository also needs a token'],
  };
  const [code, hint] = table[status] ?? (status >= 500 ? ['SF_E_UNAVAILABLE', 'the server failed; retry later'] : ['SF_E_FETCH', 'check --api: it must be a GitHub-compatible REST API root']);
  return new SfError(code, `GET ${url} failed with HTTP ${status}${message ? `: ${message}` : ''}`, { hint, data: { status } });
}

/**
 * GET a JSON document from a GitHub-compatible API. Honors rate-limit headers with a bounded wait,
 * retries 5xx a bounded number of times, follows same-origin redirects only (the token must never
 * travel to another host), and never puts the token in a message.
 */
export async function getJson(url: string, policy: RequestPolicy): Promise<JsonResponse> {
  const origin = new URL(url).origin;
  let target = url;
  let redirects = 0;
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(target, {
        redirect: 'manual',
        headers: {
          accept: 'application/vnd.github+json, application/json',
          'user-agent': 'forge-sf',
          ...(policy.token ? { authorization: `token ${policy.token}` } : {}),
        },
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new SfError('SF_E_FETCH', `could not reach ${origin}: ${cause?.code ?? cause?.message ?? String(e)}`, { hint: 'check --api and your network', cause: e });
    }
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
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new SfError('SF_E_FETCH', `GET ${target} did not return JSON`, { hint: 'check --api: it must be a REST API root such as https://api.github.com', cause: e });
      }
      return { url: target, json, headers: res.headers };
    }
    const text = await res.text();
    const advice = waitForRefusal(res.status, res.headers, policy.now()) ?? (res.status >= 500 ? { ms: 1000 * attempt, reason: `HTTP ${res.status}` } : null);
    if (!advice) throw statusError(res.status, target, serverMessage(text));
    if (advice.ms > policy.maxWaitMs) {
      throw new SfError('SF_E_RATE_LIMIT', `rate limited by ${origin}: must wait ${Math.ceil(advice.ms / 1000)} s (${advice.reason})`, {
        hint: `retry after ${new Date(policy.now() + advice.ms).toISOString()}, or allow a longer wait with --max-wait (now ${Math.round(policy.maxWaitMs / 1000)} s)`,
        data: { waitMs: advice.ms },
      });
    }
    if (attempt >= policy.maxAttempts) {
      if (res.status >= 500) throw statusError(res.status, target, serverMessage(text));
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
