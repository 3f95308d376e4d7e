import { setTimeout as sleep } from 'node:timers/promises';
import { SfError } from '../errors/index.js';

/**
 * Retries of idempotent downloads, as npm's fetch does: a connection that broke (reset, closed
 * mid-body) or a server that said it is overloaded (429, 502, 503, 504) is asked again, at most
 * `SF_FETCH_RETRIES` times (default 2), after 250 ms, then 1 s (or the server's Retry-After, up to
 * MAX_WAIT_MS). A refused connection, a timeout, a 4xx or a 500 are answers, not accidents: they
 * fail at once.
 */

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
const BACKOFF_MS = [250, 1_000, 4_000];
/** A Retry-After longer than this is not waited for: the command fails and says so. */
export const MAX_WAIT_MS = 10_000;

/** Socket-level failures of undici's fetch that a second request may well not meet. */
const BROKEN_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** Errors (SfErrors made from a broken connection or an overloaded answer) worth a second request, with the wait the server asked for. */
const transient = new WeakMap<object, number | undefined>();

/** Marks `error` as made from a transient failure (`retryAfterMs`: the server's own wait). */
export function markTransient<E extends object>(error: E, retryAfterMs?: number): E {
  transient.set(error, retryAfterMs);
  return error;
}

/** True when fetch failed (or a body stopped) because the connection broke, not because it was refused or timed out. */
export function brokenConnection(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && BROKEN_CONNECTION.has(code)) return true;
    if (e.message === 'terminated' || e.message === 'other side closed') return true;
  }
  return false;
}

/**
 * Retry-After (RFC 9110 §10.2.3: delay-seconds or an HTTP date) in ms, a date in the past as 0;
 * undefined when absent or unreadable. The one parser of it: downloads, the observer's deliveries
 * and `sf forge fetch` all read it here.
 */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** How many retries SF_FETCH_RETRIES allows (0 turns them off; default 2, at most 3). */
export function fetchRetries(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SF_FETCH_RETRIES?.trim();
  if (!raw) return 2;
  if (!/^\d+$/.test(raw)) {
    throw new SfError('SF_E_USAGE', `SF_FETCH_RETRIES must be a whole number of retries (0 to ${BACKOFF_MS.length}), not "${raw}"`, { hint: 'e.g. SF_FETCH_RETRIES=0 to fail at the first broken connection' });
  }
  return Math.min(Number(raw), BACKOFF_MS.length);
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are spent. `attempt` gets the
 * number of failures so far; only errors marked transient (markTransient) are retried.
 */
export async function withRetries<T>(attempt: (failures: number) => Promise<T>, retries = fetchRetries()): Promise<T> {
  for (let failures = 0; ; failures++) {
    try {
      return await attempt(failures);
    } catch (e) {
      if (failures >= retries || typeof e !== 'object' || e === null || !transient.has(e)) throw e;
      const asked = transient.get(e);
      if (asked !== undefined && asked > MAX_WAIT_MS) throw e;
      await sleep(Math.max(asked ?? 0, BACKOFF_MS[failures]));
    }
  }
}
