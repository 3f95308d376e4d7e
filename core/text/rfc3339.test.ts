import assert from 'node:assert/strict';
import { LATEST_MS, parseRfc3339 } from './rfc3339.js';

const iso = (v: string) => {
  const ms = parseRfc3339(v);
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

describe('parseRfc3339', () => {
  it('reads RFC 3339 dates and date-times in every zone form', () => {
    assert.equal(iso('2026-08-09'), '2026-08-09T00:00:00.000Z');
    assert.equal(iso('2026-08-09T10:00:00Z'), '2026-08-09T10:00:00.000Z');
    assert.equal(iso('2026-08-09t10:00:00z'), '2026-08-09T10:00:00.000Z');
    assert.equal(iso('2026-08-09 10:00:00.123456+02:00'), '2026-08-09T08:00:00.123Z');
    assert.equal(iso('2026-08-09T23:59:59-23:59'), '2026-08-10T23:58:59.000Z');
    assert.equal(parseRfc3339('1970-01-01T00:00:00Z'), 0);
    assert.equal(parseRfc3339('9999-12-31T23:59:59.999Z'), LATEST_MS);
  });

  it('refuses what RFC 3339 does not allow, even where Date.parse would take it', () => {
    for (const v of ['2026-08-09T24:00:00Z', '2026-08-09T23:60:00Z', '2026-08-09T10:00:61Z', '2026-08-09T10:00Z', '2026-08-09T10:00:00', '2026-08-09T10:00:00+24:00', '2026-08-09T10:00:00+02:60', '2026-02-30', '2026-13-01', '20260809', 'June 2026', '-5', '']) {
      assert.equal(parseRfc3339(v), undefined, v);
    }
  });

  it('reads a leap second as the last millisecond of the second before it, and only at the end of a UTC day', () => {
    assert.equal(iso('2016-12-31T23:59:60Z'), '2016-12-31T23:59:59.999Z');
    assert.equal(iso('2016-12-31T23:59:60.5Z'), '2016-12-31T23:59:59.999Z');
    assert.equal(iso('2016-12-31T15:59:60-08:00'), '2016-12-31T23:59:59.999Z');
    assert.equal(parseRfc3339('2016-12-31T22:59:60Z'), undefined);
    assert.equal(parseRfc3339('2016-12-31T23:59:60+01:00'), undefined);
  });

  it('keeps to 1970-9999', () => {
    for (const v of ['1969-12-31T23:59:59Z', '0070-01-01', '1970-01-01T00:00:00+00:01']) assert.equal(parseRfc3339(v), undefined, v);
  });
});
