import assert from 'node:assert/strict';
import { codesOf, DECLARED, findDiagnostic, readme, skillMd, validateTree, type MemoryTree } from '../../test-support/skit-layout.js';

/** Skills a and b; skill a gets `mappings` ([from, to]). */
function kit(mappings: [string, string][], files: MemoryTree = {}): MemoryTree {
  const shared = mappings.length
    ? `    shared:\n${mappings.map(([from, to]) => `      - from: ${JSON.stringify(from)}\n        to: ${JSON.stringify(to)}\n`).join('')}`
    : '';
  const yaml = `skit: 1\nid: acme/kit\nskills:\n  - name: a\n    path: skills/a\n${DECLARED}${shared}  - name: b\n    path: skills/b\n${DECLARED}`;
  return {
    'README.md': readme(yaml),
    'skills/a/SKILL.md': skillMd('a'),
    'skills/a/references/own.md': 'own',
    'skills/b/SKILL.md': skillMd('b'),
    'shared/style/guide.md': 'guide',
    'shared/style/deep/more.md': 'more',
    'shared/one.md': 'one',
    ...files,
  };
}

describe('SKIT validation: shared mappings', () => {
  it('accepts directory and file mappings into free skill paths and keeps them in the layout', () => {
    const r = validateTree(kit([['shared/style', 'references/style'], ['shared/one.md', 'one.md']]));
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.layout?.skills[0].shared, [
      { from: 'shared/style', to: 'references/style' },
      { from: 'shared/one.md', to: 'one.md' },
    ]);
  });

  it('rejects a mapping whose source does not exist', () => {
    const d = findDiagnostic(validateTree(kit([['shared/nope', 'x']])), 'SKIT_SHARED_FROM_MISSING');
    assert.deepEqual([d.file, d.line, d.column], ['README.md', 13, 9]);
  });

  it('rejects sources inside a skill directory, or containing one', () => {
    assert.deepEqual(codesOf(validateTree(kit([['skills/b/SKILL.md', 'b.md']]))), ['SKIT_SHARED_FROM_IN_SKILL']);
    assert.deepEqual(codesOf(validateTree(kit([['skills/a/references', 'refs']]))), ['SKIT_SHARED_FROM_IN_SKILL']);
    assert.match(findDiagnostic(validateTree(kit([['skills', 'all']])), 'SKIT_SHARED_FROM_IN_SKILL').message, /contains the skill directory skills\/a/);
  });

  it('rejects hostile from and to paths', () => {
    for (const [from, to] of [
      ['../outside', 'x'],
      ['/etc/passwd', 'x'],
      ['shared\\one.md', 'x'],
      ['shared/one.md', '../b/SKILL.md'],
      ['shared/one.md', '/tmp/x'],
      ['shared/one.md', 'C:\\x'],
      ['shared/one.md', 'refs/\u0007bell'],
      ['shared/one.md', 'refs/aux'],
    ]) {
      const r = validateTree(kit([[from, to]]));
      assert.deepEqual(codesOf(r), ['SKIT_SHARED_PATH_UNSAFE'], `${from} -> ${to}`);
    }
  });

  it('rejects a target that lands on an own file, also after case folding', () => {
    assert.deepEqual(codesOf(validateTree(kit([['shared/one.md', 'SKILL.md']]))), ['SKIT_SHARED_TO_COLLISION']);
    assert.deepEqual(codesOf(validateTree(kit([['shared/one.md', 'References/OWN.md']]))), ['SKIT_SHARED_TO_COLLISION']);
  });

  it('rejects file/directory clashes and two mappings onto the same path', () => {
    // a file where the skill has a directory
    assert.deepEqual(codesOf(validateTree(kit([['shared/one.md', 'references']]))), ['SKIT_SHARED_TO_COLLISION']);
    // a directory below an own file
    assert.match(
      findDiagnostic(validateTree(kit([['shared/style', 'SKILL.md/style']])), 'SKIT_SHARED_TO_COLLISION').message,
      /needs "SKILL.md" to be a directory/,
    );
    const twice = validateTree(kit([['shared/one.md', 'x.md'], ['shared/style/guide.md', 'x.md']]));
    assert.deepEqual(codesOf(twice), ['SKIT_SHARED_TO_COLLISION']);
  });

  it('allows mapping into an existing directory when the files are new', () => {
    assert.deepEqual(validateTree(kit([['shared/style', 'references']])).diagnostics, []);
  });
});
