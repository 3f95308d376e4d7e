import assert from 'node:assert/strict';
import { isoNanos, msOfIso, safeId } from './values.js';

describe('hub normalizer values', () => {
  it('msOfIso is Date.parse for row timestamps, odd strings included', () => {
    const samples = [
      '2026-08-01T00:00:00.121197253Z', '2026-08-01T00:00:00.999999999Z', '2000-01-01T00:00:00.000000000Z', '1999-12-31T23:59:59.999000000Z',
      '2026-08-01T23:59:59.5Z', 'not a time', '2026-13-01T00:00:00.000000000Z', '2026-08-01T00:00:00.12a197253Z', '',
    ];
    for (const s of samples) assert.ok(Object.is(msOfIso(s), Date.parse(s)), s);
    // consecutive events within and across seconds (the date part is reused between them)
    for (let i = 0; i < 5000; i++) {
      const iso = isoNanos(`${1_785_000_000_000 + i * 397}${String((i * 7919) % 1e6).padStart(6, '0')}`);
      assert.equal(msOfIso(iso), Date.parse(iso), iso);
    }
  });

  it('safeId keeps printable ASCII ids up to 194 characters (the longest registry-valid skill id) and hashes anything else', () => {
    const longestSkillId = `${'o'.repeat(64)}/${'n'.repeat(64)}:${'s'.repeat(64)}`;
    for (const id of ['evt_1', 'a', '~'.repeat(128), 'sha256:9f2b', '!#$%', longestSkillId]) assert.equal(safeId(id), id);
    for (const id of ['', 'has space', 'tab\there', 'é', 'x'.repeat(195), 'nul\u0000', 'del\u007f']) {
      assert.match(safeId(id), /^h_[0-9a-f]{32}$/, JSON.stringify(id));
    }
    assert.equal(safeId('has space'), safeId('has space'), 'stable');
  });
});
