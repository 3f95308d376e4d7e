import assert from 'node:assert/strict';
import { compareSemver, latestVersion, parseSemver } from './semver.js';

describe('semver', () => {
  it('accepts valid versions and rejects invalid ones and build metadata', () => {
    for (const v of ['0.0.0', '1.2.3', '1.0.0-alpha.1', '10.20.30-rc.1.x-y']) assert.ok(parseSemver(v), v);
    for (const v of ['1', '1.2', '01.2.3', '1.2.3+build', 'v1.2.3', '1.2.3-', '1.2.3-01', '']) assert.equal(parseSemver(v), null, v);
  });
  it('orders by precedence as semver.org §11 lists', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '2.0.0', '2.1.0', '2.1.1'];
    const shuffled = [...ordered].reverse();
    assert.deepEqual(shuffled.sort(compareSemver), ordered);
  });
  it('compares numeric prerelease identifiers past 2^53 exactly, and bounds the length of a version', () => {
    assert.ok(compareSemver('1.0.0-99999999999999999999', '1.0.0-100000000000000000000') < 0);
    assert.ok(compareSemver('1.0.0-9007199254740993', '1.0.0-9007199254740992') > 0);
    assert.equal(latestVersion(['1.0.0-99999999999999999999', '1.0.0-100000000000000000000']), '1.0.0-100000000000000000000');
    assert.ok(parseSemver(`1.0.0-${'a'.repeat(250)}`));
    assert.equal(parseSemver(`1.0.0-${'a'.repeat(251)}`), null);
  });
  it('latest prefers stable releases', () => {
    assert.equal(latestVersion(['1.0.0', '2.0.0-rc.1', '1.1.0']), '1.1.0');
    assert.equal(latestVersion(['2.0.0-rc.1', '2.0.0-rc.2']), '2.0.0-rc.2');
    assert.equal(latestVersion([]), undefined);
  });
});
