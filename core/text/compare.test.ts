import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareIds } from './compare.js';

describe('compareIds', () => {
  it('orders plain ids exactly as localeCompare does (root, English and POSIX collations)', () => {
    const id = fc.stringMatching(/^[a-z0-9/-]{0,12}$/);
    fc.assert(
      fc.property(id, id, (a, b) => {
        const got = Math.sign(compareIds(a, b));
        assert.equal(got, Math.sign(a.localeCompare(b, 'en')), `${a} vs ${b} (en)`);
        assert.equal(got, Math.sign(a.localeCompare(b, 'und')), `${a} vs ${b} (root)`);
        assert.equal(got, Math.sign(a.localeCompare(b, 'en-US-u-va-posix')), `${a} vs ${b} (POSIX)`);
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to localeCompare for anything else', () => {
    assert.equal(compareIds('Zeta', 'alpha'), 'Zeta'.localeCompare('alpha'));
    assert.equal(compareIds('a_b', 'a-b'), 'a_b'.localeCompare('a-b'));
  });
});
