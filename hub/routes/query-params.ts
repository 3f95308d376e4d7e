import type { Context } from 'hono';
import { SfError } from '../../core/errors/index.js';
import { LATEST_MS, parseRfc3339 } from '../../core/text/rfc3339.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A request value echoed in an error message, cut short (it is the caller's, of any length). */
export const echo = (v: string): string => (v.length > 40 ? `${v.slice(0, 40)}...` : v);

/** The query parameters of one request: each name the route takes, given at most once. */
export type QueryParams = ReadonlyMap<string, string>;

/**
 * The request's query parameters, or SF_E_USAGE naming every one the route does not take or that
 * is given twice: a filter the route does not have, or a second value it would ignore, would
 * otherwise answer a question the caller did not ask.
 */
export function queryParams(c: Context, allowed: readonly string[], docs = 'docs/hub-telemetry.md'): QueryParams {
  const all = c.req.queries();
  const unknown = Object.keys(all).filter((name) => !allowed.includes(name));
  if (unknown.length) {
    throw new SfError('SF_E_USAGE', `unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map(echo).join(', ')}`, {
      hint: allowed.length ? `this route takes ${allowed.join(', ')} (${docs})` : 'this route takes no query parameters',
    });
  }
  const repeated = Object.keys(all).filter((name) => all[name].length > 1);
  if (repeated.length) {
    throw new SfError('SF_E_USAGE', `query parameter ${repeated.join(', ')} given more than once`, { hint: 'give each parameter once' });
  }
  return new Map(Object.entries(all).map(([name, values]) => [name, values[0]]));
}

/**
 * A time parameter in epoch milliseconds, undefined when absent. A date-only `to` (2026-08-09)
 * means the whole of that UTC day, on every endpoint: its last millisecond (usage reads whole
 * days, and timeline and evidence windows include their end).
 */
export function timeParam(params: QueryParams, name: 'from' | 'to'): number | undefined {
  const v = params.get(name);
  if (v === undefined || v === '') return undefined;
  const ms = /^\d+$/.test(v) ? Number(v) : parseRfc3339(v);
  if (ms === undefined || !Number.isFinite(ms) || ms > LATEST_MS) {
    throw new SfError('SF_E_USAGE', `${name}=${echo(v)} is not a time between 1970 and 9999`, { hint: 'use RFC 3339 (2026-08-09T00:00:00Z) or epoch milliseconds' });
  }
  return name === 'to' && DATE_ONLY.test(v) ? Math.min(ms + DAY_MS - 1, LATEST_MS) : ms;
}

export interface TimeWindow {
  fromMs: number;
  toMs: number;
  /** the bounds as the request gave them (undefined where defaulted) */
  asked: { from?: number; to?: number };
}

/**
 * The window a query reads: `to` defaults to a day after `now`, `from` to `defaultDays` before
 * `to`; a defaulted bound stays within the 1970-9999 every time parameter keeps to.
 */
export function timeWindow(params: QueryParams, now: number, defaultDays: number): TimeWindow {
  const to = timeParam(params, 'to');
  const from = timeParam(params, 'from');
  const toMs = to ?? Math.min(now + DAY_MS, LATEST_MS);
  const fromMs = from ?? Math.max(0, toMs - defaultDays * DAY_MS);
  if (fromMs > toMs) throw new SfError('SF_E_USAGE', 'from is after to', { hint: 'swap the values, or give a from earlier than to' });
  return { fromMs, toMs, asked: { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) } };
}

/** The UTC day (YYYY-MM-DD) of a time. */
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The UTC days a usage query reads, both inclusive. Usage is counted per UTC day, so a bound that
 * is a time must be a midnight (UTC): anything else would silently count activations outside the
 * window asked for. A date-only `to` covers its whole day (as on every route); a midnight `to` is
 * exclusive, so `from=D-1T00:00Z&to=DT00:00Z` reads day D-1 only (the usual half-open "last 24 h").
 * A defaulted bound is not a request: it keeps the days it falls in.
 */
export function usageDays(params: QueryParams, now: number, defaultDays: number): { fromDay: string; toDay: string } {
  for (const name of ['from', 'to'] as const) {
    const v = params.get(name);
    const ms = timeParam(params, name);
    if (v === undefined || ms === undefined || DATE_ONLY.test(v) || ms % DAY_MS === 0) continue;
    throw new SfError('SF_E_USAGE', `${name}=${echo(v)} is not at midnight UTC, and usage is counted by UTC day: give dates (YYYY-MM-DD) or midnight times`, {
      hint: `e.g. ${name}=${dayOf(ms)}; a date-only to includes its day, a midnight to (${dayOf(ms)}T00:00:00Z) excludes it (docs/hub-telemetry.md)`,
    });
  }
  const { fromMs, toMs, asked } = timeWindow(params, now, defaultDays);
  const toExclusive = asked.to !== undefined && !DATE_ONLY.test(params.get('to') ?? '');
  if (toExclusive && fromMs === toMs) {
    throw new SfError('SF_E_USAGE', `from and to are the same midnight: a midnight to is exclusive, so the window holds no day`, {
      hint: `give a to at least a day after from, or a date-only to (to=${dayOf(toMs)}) to include that day`,
    });
  }
  return { fromDay: dayOf(fromMs), toDay: dayOf(toExclusive ? toMs - 1 : toMs) };
}

export function intParam(params: QueryParams, name: string, fallback: number, max: number): number {
  const v = params.get(name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new SfError('SF_E_USAGE', `${name} must be a positive integer`, { hint: `e.g. ${name}=100 (at most ${max})` });
  return Math.min(Number(v), max);
}
