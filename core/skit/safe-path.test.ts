import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkRelativePath, collisionKey, findCollisions, isWithin, type PathCollision, type PathProblem } from './safe-path.js';

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
    ['skills/a<b', 'windows-char'],
    ['skills/a|b.md', 'windows-char'],
    ['skills/why?.md', 'windows-char'],
    ['skills/a*b', 'windows-char'],
    ['skills/"q"', 'windows-char'],
    ['SKILL.md:stream', 'windows-char'],
    ['skills/hello/caf\u00e9:x', 'windows-char'],
    ['skills/hello/SKILL\u200b.md', 'invisible'],
    ['skills/.g\u200cit/config', 'invisible'],
    ['skills/hello/\ufeffREADME.md', 'invisible'],
    ['skills/review/SKILL.md\u{e0020}', 'invisible'],
    ['skills/\u3164', 'invisible'],
    ['skills/a\u034fb', 'invisible'],
    ['skills/a\ufe0f', 'invisible'],
    ['skills/a\u2028b', 'invisible'],
    ['skills/\u115f.md', 'invisible'],
    ['skills/hello/.Git/config', 'git-dir'],
    ['skills/hello/.GIT', 'git-dir'],
    ['skills/hello/GIT~1/HEAD', 'git-dir'],
    ['skills/caf\u00e9/.gIt/HEAD', 'git-dir'],
  ];
  for (const [p, problem] of bad) {
    it(`rejects ${JSON.stringify(p).slice(0, 40)} as ${problem}`, () => assert.equal(checkRelativePath(p), problem));
  }
  it('accepts ordinary nested paths and a trailing directory slash', () => {
    assert.equal(checkRelativePath('skills/a/SKILL.md'), null);
    assert.equal(checkRelativePath('skills/a/'), null);
    assert.equal(checkRelativePath('café/naïve.md'), null);
    assert.equal(checkRelativePath('notes/\u26a0\ufe0f-warnings.md'), null, 'VS16 after an emoji chooses its presentation');
    assert.equal(checkRelativePath('skills/.github/x.md'), null);
    assert.equal(checkRelativePath('skills/git/.gitignore'), null);
  });
  it('finds case, NFC/NFD and duplicate collisions, including file-vs-directory', () => {
    const c = findCollisions(['a/README.md', 'a/readme.md', 'caf\u00e9', 'cafe\u0301', 'x', 'x', 'D', 'd/e']);
    assert.deepEqual(
      c.map((x) => x.kind),
      ['case', 'unicode-normalization', 'duplicate', 'case'],
    );
  });
  it('folds what case-insensitive filesystems fold beyond lower case (ß/SS, ς/σ, ſ/s, ﬁ/FI), like the archive check', () => {
    for (const [a, b] of [['docs/straße.md', 'docs/STRASSE.md'], ['σ.md', 'ς.md'], ['ſ.md', 's.md'], ['ﬁ.md', 'FI.md']]) {
      assert.deepEqual(findCollisions([a, b]).map((c) => c.kind), ['case'], `${a} ${b}`);
    }
  });
  it('isWithin respects segment boundaries', () => {
    assert.ok(isWithin('skills/a/x', 'skills/a'));
    assert.ok(!isWithin('skills/ab/x', 'skills/a'));
  });

  // The implementation takes shortcuts (plain-ASCII paths skip the checks that cannot fail,
  // directory prefixes are keyed once). These references are the rules written out plainly.
  describe('agrees with the plain statement of the rules', () => {
    const referenceCheck = (p: string): PathProblem | null => {
      if (p.length === 0) return 'empty';
      if (p.includes('\u0000')) return 'nul';
      if (/[\u0001-\u001f\u007f-\u009f]/.test(p)) return 'control';
      if (/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(p)) return 'bidi';
      if (/[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2028\u2029\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0d\ufeff\uffa0\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]|(?<!\p{Extended_Pictographic})[\ufe0e\ufe0f]/u.test(p)) return 'invisible';
      if (p.startsWith('\\\\') || p.startsWith('//')) return 'unc';
      if (p.includes('\\')) return 'backslash';
      if (/^[a-zA-Z]:/.test(p)) return 'drive';
      if (p.startsWith('/')) return 'absolute';
      if (Buffer.byteLength(p) > 1024) return 'too-long';
      if (/[<>:"|?*]/.test(p)) return 'windows-char';
      const segments = p.split('/');
      if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
      for (const s of segments) {
        if (s === '') return 'empty-segment';
        if (s === '..') return 'dotdot';
        if (s === '.') return 'dot-segment';
        if (Buffer.byteLength(s) > 255) return 'too-long';
        if (/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i.test(s)) return 'reserved-name';
        if (/[. ]$/.test(s)) return 'trailing-dot-or-space';
        if ((s.toLowerCase() === '.git' && s !== '.git') || s.toLowerCase() === 'git~1') return 'git-dir';
      }
      return null;
    };
    const referenceCollisions = (paths: string[]): PathCollision[] => {
      const seen = new Map<string, string>();
      const out: PathCollision[] = [];
      const exact = new Set<string>();
      const reported = new Set<string>();
      for (const raw of paths) {
        const p = raw.endsWith('/') ? raw.slice(0, -1) : raw;
        if (exact.has(p)) {
          out.push({ first: p, second: p, kind: 'duplicate' });
          continue;
        }
        exact.add(p);
        const segs = p.split('/');
        for (let i = 1; i <= segs.length; i++) {
          const prefix = segs.slice(0, i).join('/');
          const prior = seen.get(collisionKey(prefix));
          if (prior === undefined) seen.set(collisionKey(prefix), prefix);
          else if (prior !== prefix && !reported.has(prefix)) {
            reported.add(prefix);
            out.push({ first: prior, second: prefix, kind: prior.normalize('NFC') === prefix.normalize('NFC') ? 'unicode-normalization' : 'case' });
          }
        }
      }
      return out;
    };
    const tricky = fc.constantFrom('a', 'C', 'o', 'n', 'N', 'u', 'l', 'p', 't', 'x', '1', '$', 'r', 'i', '/', '.', ' ', '\\', ':', '\u00b9', '\u0001', '\u202e', 'é', 'e\u0301', 'É', '<', '"', '*', '\u200b', 'g', 'G', 'I', 'T', '~', '.git', '.GIT', 'git~1');

    it('checkRelativePath', () => {
      const path = fc.oneof(fc.string({ unit: tricky, maxLength: 14 }), fc.string({ maxLength: 20 }), fc.string({ unit: tricky, minLength: 250, maxLength: 1030 }));
      fc.assert(fc.property(path, (p) => assert.equal(checkRelativePath(p), referenceCheck(p))), { numRuns: 20_000 });
      for (const p of ['/', '//', 'a/', 'a//', 'x'.repeat(1024), 'x'.repeat(1025), `${'a/'.repeat(512)}`, `a/${'x'.repeat(255)}`, `a/${'x'.repeat(256)}`, 'lpt1.x.y', 'conin$', '..a', 'a..']) {
        assert.equal(checkRelativePath(p), referenceCheck(p), JSON.stringify(p));
      }
    });

    it('findCollisions: each colliding name once, even a directory with many files', () => {
      const segment = fc.constantFrom('a', 'A', 'b', 'caf\u00e9', 'cafe\u0301', 'CAF\u00c9', '', 'ß', 'SS', 'ss', 'K', '\u212a');
      const path = fc.array(segment, { minLength: 1, maxLength: 4 }).chain((s) => fc.constantFrom(s.join('/'), `${s.join('/')}/`));
      fc.assert(fc.property(fc.array(path, { maxLength: 12 }), (paths) => assert.deepEqual(findCollisions(paths), referenceCollisions(paths))), { numRuns: 5_000 });
    });
  });
});
