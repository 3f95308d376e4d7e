/**
 * A full-date (2026-08-09) or date-time (2026-08-09T10:00:00Z, ...T10:00:00.5+02:00) of RFC 3339
 * §5.6: hour 00-23, minute 00-59, second 00-60 (60 only for a leap second), a zone Z or ±hh:mm.
 * A space for the T is the readability variant §5.6 allows.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?([Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;
/** The last millisecond of year 9999: day keys and ISO strings are made from these times. */
export const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The date part names a day of the calendar (Date.parse turns 30 February into 2 March). */
function realDate(y: number, m: number, d: number): boolean {
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/**
 * Epoch milliseconds of an RFC 3339 date or date-time between 1970 and 9999, else undefined.
 * Date.parse alone takes almost anything ("-5" is a day in 2001, "June" a day in 2001 too, hour 24
 * the next day). A leap second is valid RFC 3339 only as the last second of a UTC day (23:59:60Z,
 * or 15:59:60-08:00); epoch milliseconds have no such second, so it is read as the last
 * millisecond of the second before it (23:59:59.999Z), which keeps it in its own UTC day.
 */
export function parseRfc3339(v: string): number | undefined {
  const m = RFC3339.exec(v);
  if (!m || !realDate(Number(m[1]), Number(m[2]), Number(m[3]))) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const leap = s === '60';
  // rebuilt in the one form Date.parse is specified to read (ECMA-262 date time string format)
  const time = h === undefined ? '00:00:00Z' : `${h}:${mi}:${leap ? '59.999' : `${s}${(frac ?? '').slice(0, 4)}`}${zone.toUpperCase()}`;
  const ms = Date.parse(`${y}-${mo}-${d}T${time}`);
  if (leap && !new Date(ms).toISOString().endsWith('T23:59:59.999Z')) return undefined;
  return Number.isFinite(ms) && ms >= 0 && ms <= LATEST_MS ? ms : undefined;
}
