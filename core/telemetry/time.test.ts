import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isoToNanos, isoUtc, nanosToIso } from './time.js';

describe('telemetry time', () => {
  it('isoUtc writes exactly what Date#toISOString writes, for any millisecond of years 0-9999 and beyond', () => {
    const min = Date.UTC(0, 0, 1) - 86_400_000 * 366;
    const max = Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 86_400_000 * 366;
    fc.assert(fc.property(fc.integer({ min, max }), (ms) => isoUtc(ms) === new Date(ms).toISOString()), { numRuns: 20_000 });
    for (const ms of [0, -1, 1, 86_399_999, Date.UTC(2000, 1, 29, 12, 0, 0, 7), Date.UTC(9999, 11, 31, 23, 59, 59, 999), min, max]) assert.equal(isoUtc(ms), new Date(ms).toISOString(), String(ms));
    assert.match(isoUtc(), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('round-trips nanosecond timestamps through RFC 3339', () => {
    assert.equal(nanosToIso('1700000000123456789'), '2023-11-14T22:13:20.123456789Z');
    assert.equal(isoToNanos('2023-11-14T22:13:20.123456789Z'), '1700000000123456789');
    assert.equal(nanosToIso('1700000000000000000'), '2023-11-14T22:13:20.000Z');
  });
});
