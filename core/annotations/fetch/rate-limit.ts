/**
 * Rate-limit signals of GitHub-compatible APIs: `retry-after` (seconds or an HTTP date) and
 * `x-ratelimit-remaining` / `x-ratelimit-reset` (epoch seconds). Pure: takes headers and a clock.
 */

export interface WaitAdvice {
  ms: number;
  reason: string;
  /** a quota refusal (429, 403 with quota headers, a used-up quota), or a server that failed (5xx) and is tried again */
  cause: 'rate-limit' | 'server-error';
}

/** GitHub's documented fallback for a secondary rate limit without headers: wait at least a minute. */
export const SECONDARY_LIMIT_WAIT_MS = 60_000;

function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function resetMs(headers: Headers, now: number): number | null {
  const reset = headers.get('x-ratelimit-reset');
  if (reset === null || !/^\d+$/.test(reset.trim())) return null;
  return Math.max(0, Number(reset) * 1000 - now);
}

/**
 * How long to wait before retrying a refused request, or null when the response is not a
 * rate-limit refusal (then a 403 is a real permission error).
 */
export function waitForRefusal(status: number, headers: Headers, now: number): WaitAdvice | null {
  const after = retryAfterMs(headers.get('retry-after'), now);
  if (after !== null && (status === 429 || status === 403 || status === 503)) {
    return { ms: after, reason: `HTTP ${status}, retry-after ${headers.get('retry-after')}`, cause: status === 503 ? 'server-error' : 'rate-limit' };
  }
  if ((status === 403 || status === 429) && headers.get('x-ratelimit-remaining') === '0') {
    const ms = resetMs(headers, now);
    if (ms !== null) return { ms, reason: `rate limit exhausted until x-ratelimit-reset ${headers.get('x-ratelimit-reset')}`, cause: 'rate-limit' };
  }
  if (status === 429) return { ms: SECONDARY_LIMIT_WAIT_MS, reason: 'HTTP 429 without retry-after', cause: 'rate-limit' };
  return null;
}

/** After a successful response: wait before the next request when the quota is used up. */
export function waitBeforeNext(headers: Headers, now: number): WaitAdvice | null {
  if (headers.get('x-ratelimit-remaining') !== '0') return null;
  const ms = resetMs(headers, now);
  return ms === null ? null : { ms, reason: `x-ratelimit-remaining 0 until reset ${headers.get('x-ratelimit-reset')}`, cause: 'rate-limit' };
}

/** The `rel="next"` target of a Link header, resolved against `base`. */
export function nextLink(link: string | null, base: string): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;(.*)$/.exec(part.trim());
    const rel = m ? /\brel\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(m[2]) : null;
    if (m && rel && (rel[1] ?? rel[2]).split(/\s+/).includes('next')) return new URL(m[1], base).toString();
  }
  return null;
}
