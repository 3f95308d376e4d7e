import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { isSfError } from '../errors/index.js';
import { isSafeRelativePath } from './safe-path.js';
import { canonicalListing, compareUtf8, digestListing, digestPreparedListing, HASH_STRING_PATTERN, normalizeHashPath, prepareListing, type HashEntry } from './hash-listing.js';

const hex = (s: string) => createHash('sha256').update(s).digest('hex');
const EMPTY = hex('');

describe('canonical hash listing', () => {
  it('writes one `<mode>\\t<sha256>\\t<path>\\n` line per entry', () => {
    const listing = canonicalListing([{ path: 'SKILL.md', mode: 'file', sha256: EMPTY }]);
    assert.equal(listing, `file\t${EMPTY}\tSKILL.md\n`);
  });

  it('sorts by UTF-8 bytes, not UTF-16 code units (U+FF21 before U+1F600)', () => {
    const entries: HashEntry[] = [
      { path: '\u{1F600}.md', mode: 'file', sha256: EMPTY },
      { path: '\uFF21.md', mode: 'file', sha256: EMPTY },
      { path: 'B.md', mode: 'exec', sha256: EMPTY },
      { path: 'a.md', mode: 'file', sha256: EMPTY },
    ];
    // code-unit order would put the emoji (D83D ...) before U+FF21
    assert.ok('\u{1F600}' < '\uFF21');
    const paths = canonicalListing(entries)
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t')[2]);
    assert.deepEqual(paths, ['B.md', 'a.md', '\uFF21.md', '\u{1F600}.md']);
  });

  it('lists NFD paths under their NFC form, so both spellings hash the same', () => {
    const nfd = 'cafe\u0301.md';
    assert.equal(digestListing('bundle', [{ path: nfd, mode: 'file', sha256: EMPTY }]), digestListing('bundle', [{ path: 'caf\u00e9.md', mode: 'file', sha256: EMPTY }]));
    assert.equal(normalizeHashPath(nfd), 'caf\u00e9.md');
  });

  it('refuses two entries with the same normalized path', () => {
    assert.throws(
      () => canonicalListing([{ path: 'caf\u00e9.md', mode: 'file', sha256: EMPTY }, { path: 'cafe\u0301.md', mode: 'file', sha256: EMPTY }]),
      (e: unknown) => isSfError(e, 'SF_E_PATH_COLLISION'),
    );
  });

  it('refuses paths that would make a listing ambiguous or unprojectable', () => {
    for (const bad of ['a\tb', 'a\nb', '../x', '/etc/passwd', 'a\\b', 'C:x', 'dir/', '']) {
      assert.throws(() => canonicalListing([{ path: bad, mode: 'file', sha256: EMPTY }]), (e: unknown) => isSfError(e, 'SF_E_UNSAFE_PATH'), JSON.stringify(bad));
    }
  });

  it('separates domains: the same entries give different bundle and skill hashes', () => {
    const entries: HashEntry[] = [{ path: 'SKILL.md', mode: 'file', sha256: EMPTY }];
    const bundle = digestListing('bundle', entries);
    const skill = digestListing('skill', entries);
    assert.match(bundle, HASH_STRING_PATTERN);
    assert.notEqual(bundle, skill);
    assert.equal(bundle, `sha256:${hex(`forge-skit-bundle/1\nfile\t${EMPTY}\tSKILL.md\n`)}`);
  });

  it('compareUtf8 orders by encoded bytes', () => {
    assert.ok(compareUtf8('\uFF21', '\u{1F600}') < 0);
    assert.ok(compareUtf8('Z', 'a') < 0);
    assert.ok(compareUtf8('a', 'ab') < 0);
    assert.equal(compareUtf8('x', 'x'), 0);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        assert.equal(Math.sign(compareUtf8(a, b)), Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 2000 },
    );
    // ASCII pairs take the engine's comparison: the same order
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii' }), fc.string({ unit: 'binary-ascii' }), (a, b) => {
        assert.equal(Math.sign(compareUtf8(a, b)), Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a path with a lone surrogate (it has no UTF-8 form)', () => {
    assert.throws(() => normalizeHashPath('a\ud800.md'), (e: unknown) => isSfError(e, 'SF_E_UNSAFE_PATH'));
    assert.equal(normalizeHashPath('a\u{1F600}.md'), 'a\u{1F600}.md');
  });

  describe('properties', () => {
    // safe names only: the generator can also spell reserved device names such as `nul` or `com1`
    const segment = fc.stringMatching(/^[a-z0-9\u00e9\u65e5_-]{1,8}$/).filter(isSafeRelativePath);
    const entry = fc.record({
      path: fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')),
      mode: fc.constantFrom<'file' | 'exec'>('file', 'exec'),
      sha256: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
    });
    // no entry may be a directory prefix of another or a duplicate: a real tree never has those
    const tree = fc.uniqueArray(entry, { minLength: 1, maxLength: 12, selector: (e) => e.path }).filter((es) => es.every((a) => es.every((b) => !b.path.startsWith(`${a.path}/`))));

    it('does not depend on entry order', () => {
      fc.assert(fc.property(tree, fc.infiniteStream(fc.nat()), (entries, seeds) => {
        const shuffled = [...entries].sort(() => (seeds.next().value % 3) - 1);
        assert.equal(digestListing('bundle', shuffled), digestListing('bundle', entries));
      }));
    });

    it('changes when one byte of a file hash, a mode class or a path changes', () => {
      fc.assert(fc.property(tree, fc.nat(), fc.constantFrom('sha', 'mode', 'path'), (entries, pick, what) => {
        const i = pick % entries.length;
        const before = digestListing('skill', entries);
        const changed = entries.map((e) => ({ ...e }));
        const target = changed[i];
        if (what === 'sha') target.sha256 = (target.sha256[0] === '0' ? '1' : '0') + target.sha256.slice(1);
        if (what === 'mode') target.mode = target.mode === 'file' ? 'exec' : 'file';
        if (what === 'path') target.path = `${target.path}~`;
        assert.notEqual(digestListing('skill', changed), before);
      }));
    });

    it('prepared in two halves (paths first, digests later) it is the same digest, and refuses the same paths', () => {
      const anyPath = fc.oneof(
        fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')),
        fc.constantFrom('caf\u00e9', 'cafe\u0301', '../x', 'a\tb', 'dir/', ''),
      );
      const loose = fc.array(fc.record({ path: anyPath, mode: fc.constantFrom<'file' | 'exec'>('file', 'exec'), sha256: entry.map((e) => e.sha256) }), { maxLength: 10 });
      const outcome = (f: () => string) => {
        try {
          return f();
        } catch (e) {
          return isSfError(e) ? `${e.code}: ${e.message}` : String(e);
        }
      };
      fc.assert(fc.property(loose, fc.constantFrom<'bundle' | 'skill'>('bundle', 'skill'), (entries, kind) => {
        const twoHalves = () => {
          const prepared = prepareListing(entries);
          return digestPreparedListing(kind, prepared.paths, prepared.entries);
        };
        assert.equal(outcome(twoHalves), outcome(() => digestListing(kind, entries)));
      }));
    });
  });
});
