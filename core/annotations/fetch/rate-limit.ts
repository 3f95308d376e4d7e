import { retryAfterMs } from '../../runtime/fetch-retry.js';

/**
 * Rate-limit signals: `retry-after` (seconds or an HTTP date), GitHub/Gitea's
 * `x-ratelimit-remaining` / `x-ratelimit-reset` (epoch seconds) and GitLab's `ratelimit-remaining` /
 * `ratelimit-reset` (epoch seconds) / `ratelimit-resettime` (an HTTP date). Pure: takes headers and a clock.
 */

export interface WaitAdvice {
  ms: number;
  reason: string;
  /** a quota refusal (429, 403 with quota headers or a rate-limit message, a used-up quota), or a server that failed (5xx) and is tried again */
  cause: 'rate-limit' | 'server-error';
}

/** GitHub's documented fallback for a rate limit without headers (429, or 403 saying so): wait at least a minute. */
export const SECONDARY_LIMIT_WAIT_MS = 60_000;

/** The quota header a response carries: GitHub/Gitea prefix it with `x-`, GitLab does not. */
function quota(headers: Headers, name: 'remaining' | 'reset' | 'resettime'): { header: string; value: string } | null {
  for (const header of [`x-ratelimit-${name}`, `ratelimit-${name}`]) {
    const value = headers.get(header);
    if (value !== null) return { header, value };
  }
  return null;
}

const exhausted = (headers: Headers) => quota(headers, 'remaining')?.value.trim() === '0';

/** Until the quota resets: the reset epoch, else GitLab's reset date; with the header that said so. */
function resetWait(headers: Headers, now: number): { ms: number; said: string } | null {
  const reset = quota(headers, 'reset');
  if (reset && /^\d+$/.test(reset.value.trim())) return { ms: Math.max(0, Number(reset.value) * 1000 - now), said: `${reset.header} ${reset.value}` };
  const at = quota(headers, 'resettime');
  const ms = at ? Date.parse(at.value) : NaN;
  return Number.isNaN(ms) ? null : { ms: Math.max(0, ms - now), said: `${at!.header} ${at!.value}` };
}

/**
 * GitHub's secondary rate limit may answer 403 with only a message ("You have exceeded a secondary
 * rate limit", formerly "triggered an abuse detection mechanism"): no retry-after, no quota header.
 */
const RATE_LIMIT_MESSAGE = /rate limit|abuse detection/i;

/**
 * How long to wait before retrying a refused request, or null when the response is not a
 * rate-limit refusal (then a 403 is a real permission error). `message` is the server's error
 * message, which alone marks a header-less 403 as a rate limit.
 */
export function waitForRefusal(status: number, headers: Headers, now: number, message = ''): WaitAdvice | null {
  const after = retryAfterMs(headers.get('retry-after'), now);
  if (after !== undefined && (status === 429 || status === 403 || status === 503)) {
    return { ms: after, reason: `HTTP ${status}, retry-after ${headers.get('retry-after')}`, cause: status === 503 ? 'server-error' : 'rate-limit' };
  }
  if ((status === 403 || status === 429) && exhausted(headers)) {
    const reset = resetWait(headers, now);
    if (reset) return { ms: reset.ms, reason: `rate limit exhausted until ${reset.said}`, cause: 'rate-limit' };
  }
  if (status === 429) return { ms: SECONDARY_LIMIT_WAIT_MS, reason: 'HTTP 429 without retry-after', cause: 'rate-limit' };
  // GitHub: without retry-after or a used-up quota, "wait for at least one minute before retrying"
  if (status === 403 && RATE_LIMIT_MESSAGE.test(message)) {
    return { ms: SECONDARY_LIMIT_WAIT_MS, reason: `HTTP 403 without retry-after: ${message}`, cause: 'rate-limit' };
  }
  return null;
}

/** After a successful response: wait before the next request when the quota is used up. */
export function waitBeforeNext(headers: Headers, now: number): WaitAdvice | null {
  if (!exhausted(headers)) return null;
  const reset = resetWait(headers, now);
  return reset && { ms: reset.ms, reason: `${quota(headers, 'remaining')!.header} 0 until ${reset.said}`, cause: 'rate-limit' };
}

/** The `rel="next"` target of a Link header, resolved against `base`. */
export function nextLink(link: string | null, base: string): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    // anchored: unanchored, a header of many `<` is retried from each one (quadratic)
    const m = /^<([^>]+)>\s*;(.*)$/.exec(part.trim());
    const rel = m ? /\brel\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(m[2]) : null;
    if (m && rel && (rel[1] ?? rel[2]).split(/\s+/).includes('next')) return new URL(m[1], base).toString();
  }
  return null;
}
