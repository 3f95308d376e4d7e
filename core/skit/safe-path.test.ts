import assert from 'node:assert/strict';
import { checkRelativePath, findCollisions, isWithin } from './safe-path.js';

describe('safe relative paths', () => {
  const bad: [string, string][] = [
    ['', 'empty'],
    ['/etc/passwd', 'absolute'],
    ['C:/x', 'drive'],
    ['c:x', 'drive'],
    ['\\\\server\\share\\x', 'unc'],
    ['//?/C:/x', 'unc'],
    ['a\\b', 'backslash'],
    ['../x', 'dotdot'],
    ['a/../../x', 'dotdot'],
    ['a/./b', 'dot-segment'],
    ['a//b', 'empty-segment'],
    ['a\u0000b', 'nul'],
    ['a\u001bb', 'control'],
    ['evil\u202etxt.md', 'bidi'],
    ['skills/CON', 'reserved-name'],
    ['skills/nul.txt', 'reserved-name'],
    ['skills/a.', 'trailing-dot-or-space'],
    ['x'.repeat(256), 'too-long'],
  ];
  for (const [p, problem] of bad) {
    it(`rejects ${JSON.stringify(p).slice(0, 40)} as ${problem}`, () => assert.equal(checkRelativePath(p), problem));
  }
  it('accepts ordinary nested paths and a trailing directory slash', () => {
    assert.equal(checkRelativePath('skills/a/SKILL.md'), null);
    assert.equal(checkRelativePath('skills/a/'), null);
    assert.equal(checkRelativePath('café/naïve.md'), null);
  });
  it('finds case, NFC/NFD and duplicate collisions, including file-vs-directory', () => {
    const c = findCollisions(['a/README.md', 'a/readme.md', 'caf\u00e9', 'cafe\u0301', 'x', 'x', 'D', 'd/e']);
    assert.deepEqual(
      c.map((x) => x.kind),
      ['case', 'unicode-normalization', 'duplicate', 'case'],
    );
  });
  it('isWithin respects segment boundaries', () => {
    assert.ok(isWithin('skills/a/x', 'skills/a'));
    assert.ok(!isWithin('skills/ab/x', 'skills/a'));
  });
});
