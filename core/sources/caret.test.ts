import { strict as assert } from 'node:assert';
import { askedCaret, caretOf, describeCaret, newestInCaret, satisfiesCaret } from './caret.js';

describe('core/sources caret ranges (npm semantics)', () => {
  it('^1.2.3 is >=1.2.3 <2.0.0', () => {
    for (const v of ['1.2.3', '1.2.4', '1.3.0', '1.99.0']) assert.ok(satisfiesCaret(v, '^1.2.3'), v);
    for (const v of ['1.2.2', '1.0.0', '2.0.0', '0.9.0', '2.0.0-rc.1']) assert.ok(!satisfiesCaret(v, '^1.2.3'), v);
    assert.equal(describeCaret('^1.2.3'), '>=1.2.3 <2.0.0');
  });

  it('^0.2.3 is >=0.2.3 <0.3.0, and ^0.0.3 is 0.0.3 only', () => {
    for (const v of ['0.2.3', '0.2.9']) assert.ok(satisfiesCaret(v, '^0.2.3'), v);
    for (const v of ['0.2.2', '0.3.0', '1.0.0']) assert.ok(!satisfiesCaret(v, '^0.2.3'), v);
    assert.ok(satisfiesCaret('0.0.3', '^0.0.3'));
    for (const v of ['0.0.4', '0.1.0', '0.0.2']) assert.ok(!satisfiesCaret(v, '^0.0.3'), v);
    assert.equal(describeCaret('^0.2.3'), '>=0.2.3 <0.3.0');
    assert.equal(describeCaret('^0.0.3'), '0.0.3 only');
  });

  it('takes a prerelease only when the range is a prerelease of the same major.minor.patch', () => {
    assert.ok(!satisfiesCaret('1.3.0-beta.1', '^1.2.3'));
    assert.ok(satisfiesCaret('1.2.3-beta.2', '^1.2.3-beta.1'));
    assert.ok(!satisfiesCaret('1.2.3-alpha', '^1.2.3-beta.1'), 'below the range');
    assert.ok(!satisfiesCaret('1.3.0-rc.1', '^1.2.3-beta.1'), 'another major.minor.patch');
    assert.ok(satisfiesCaret('1.2.3', '^1.2.3-beta.1'));
    assert.ok(satisfiesCaret('1.4.0', '^1.2.3-beta.1'));
  });

  it('picks the newest version inside a range; anything that is not a range or a version matches nothing', () => {
    assert.equal(newestInCaret(['1.0.0', '2.0.0', '1.1.0', '1.2.0-rc.1', 'junk'], caretOf('1.0.0')), '1.1.0');
    assert.equal(newestInCaret(['2.0.0'], '^1.0.0'), undefined);
    assert.ok(!satisfiesCaret('1.0.0', '1.0.0'));
    assert.ok(!satisfiesCaret('1.0.0', '^1'));
    assert.equal(caretOf('1.0.1'), '^1.0.1');
  });

  it('reads a caret range asked for in the form it records; exact versions and latest are no range; other ranges are refused', () => {
    assert.equal(askedCaret('^1'), '^1.0.0');
    assert.equal(askedCaret('^1.2'), '^1.2.0');
    assert.equal(askedCaret('^0.2'), '^0.2.0');
    assert.equal(askedCaret('^1.2.3-beta.1'), '^1.2.3-beta.1');
    assert.equal(askedCaret('^0.0.3'), '^0.0.3');
    for (const v of ['1.2.3', 'latest', '1.2.3-beta.x', 'v2']) assert.equal(askedCaret(v), undefined, v);
    for (const v of ['^0', '^0.0', '~1.2', '>=1.0.0', '1.x', '*', '1 || 2', '^1.2.3.4', '^v1']) {
      assert.throws(() => askedCaret(v), (e: Error & { code?: string }) => e.code === 'SF_E_USAGE', v);
    }
  });
});
