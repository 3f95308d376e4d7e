/** A date (2026-08-09) or date-time with a zone (2026-08-09T10:00:00Z, ...+02:00), per RFC 3339. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;
/** The last millisecond of year 9999: day keys and ISO strings are made from these times. */
export const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The date part names a day of the calendar (Date.parse turns 30 February into 2 March). */
function realDate(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/**
 * Epoch milliseconds of an RFC 3339 date or date-time between 1970 and 9999, else undefined.
 * Date.parse alone takes almost anything ("-5" is a day in 2001, "June" a day in 2001 too).
 */
export function parseRfc3339(v: string): number | undefined {
  if (!RFC3339.test(v) || !realDate(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) && ms >= 0 && ms <= LATEST_MS ? ms : undefined;
}
