import assert from 'node:assert/strict';
import { codesOf, DECLARED, findDiagnostic, readme, skillMd, validateTree, type MemoryTree } from '../../test-support/skit-layout.js';

/** A SKIT whose skills are `entries` ([name, path]) plus extra files; every entry is fully declared. */
function kit(entries: [string, string][], files: MemoryTree = {}, extraEntryYaml = ''): MemoryTree {
  const skills = entries.map(([name, path]) => `  - name: ${name}\n    path: ${JSON.stringify(path)}\n${DECLARED}${extraEntryYaml}`).join('');
  return { 'README.md': readme(`skit: 1\nid: acme/kit\nskills:\n${skills}`), ...files };
}

describe('SKIT validation: contained skills', () => {
  it('accepts skills that each own a directory with a matching SKILL.md', () => {
    const r = validateTree(kit([['a', 'skills/a'], ['b', 'skills/b']], { 'skills/a/SKILL.md': skillMd('a'), 'skills/b/SKILL.md': skillMd('b') }));
    assert.deepEqual(r.diagnostics, []);
  });

  it('rejects duplicate skill names (SKIT_SKILL_NAME_DUPLICATE) at the second entry', () => {
    const r = validateTree(kit([['a', 'skills/a'], ['a', 'other/a']], { 'skills/a/SKILL.md': skillMd('a'), 'other/a/SKILL.md': skillMd('a') }));
    assert.deepEqual(codesOf(r), ['SKIT_SKILL_NAME_DUPLICATE']);
    assert.equal(findDiagnostic(r, 'SKIT_SKILL_NAME_DUPLICATE').line, 12);
  });

  it('rejects two entries sharing a directory, also when they differ only in case', () => {
    const same = validateTree(kit([['a', 'skills/a'], ['a2', 'skills/a/']], { 'skills/a/SKILL.md': skillMd('a') }));
    assert.ok(codesOf(same).includes('SKIT_SKILL_PATH_DUPLICATE'));
    const cased = validateTree(kit([['a', 'skills/a'], ['a', 'Skills/a']], { 'skills/a/SKILL.md': skillMd('a') }));
    assert.ok(codesOf(cased).includes('SKIT_SKILL_PATH_DUPLICATE'));
  });

  it('rejects hostile skill paths from the frontmatter', () => {
    for (const path of ['../a', 'skills/../a', '/a', 'C:/a', '\\\\server\\a', 'skills\\a', 'skills/a\u0000', 'skills/\u202ea', 'skills/con', 'skills/a.', './a']) {
      const r = validateTree(kit([['a', path]], { 'skills/a/SKILL.md': skillMd('a') }));
      assert.ok(codesOf(r).includes('SKIT_SKILL_PATH_UNSAFE'), `${JSON.stringify(path)}: ${codesOf(r)}`);
      assert.equal(r.layout?.skills.length, 0);
    }
  });

  it('rejects a skill nested in another skill directory', () => {
    const r = validateTree(kit([['a', 'skills/a'], ['b', 'skills/a/b']], { 'skills/a/SKILL.md': skillMd('a'), 'skills/a/b/SKILL.md': skillMd('b') }));
    const d = findDiagnostic(r, 'SKIT_SKILL_PATH_NESTED');
    assert.match(d.message, /inside the directory of the skill at skills\/a/);
    assert.equal(d.line, 13);
  });

  it('rejects a missing skill directory and a path that is a file', () => {
    assert.deepEqual(codesOf(validateTree(kit([['a', 'skills/a']], { 'x.md': '' }))), ['SKIT_SKILL_PATH_MISSING']);
    const file = validateTree(kit([['a', 'skills/a']], { 'skills/a': 'not a dir' }));
    assert.match(findDiagnostic(file, 'SKIT_SKILL_PATH_MISSING').message, /is a file/);
  });

  it('requires the directory name to equal the entry name', () => {
    const r = validateTree(kit([['a', 'skills/x']], { 'skills/x/SKILL.md': skillMd('a') }));
    assert.deepEqual(codesOf(r), ['SKILL_NAME_DIR_MISMATCH', 'SKIT_SKILL_DIR_MISMATCH']);
  });

  it('requires a SKILL.md in each skill directory; skill.md is accepted with a warning', () => {
    const missing = validateTree(kit([['a', 'skills/a']], { 'skills/a/notes.md': 'x' }));
    assert.deepEqual(codesOf(missing), ['SKILL_MD_MISSING']);
    assert.equal(findDiagnostic(missing, 'SKILL_MD_MISSING').file, 'skills/a/SKILL.md');
    const lower = validateTree(kit([['a', 'skills/a']], { 'skills/a/skill.md': skillMd('a') }));
    assert.deepEqual([codesOf(lower), codesOf(lower, 'warning')], [[], ['SKILL_MD_LOWERCASE']]);
  });

  it('requires the SKILL.md name to equal the entry name, reported in SKILL.md', () => {
    const r = validateTree(kit([['a', 'skills/a']], { 'skills/a/SKILL.md': skillMd('b') }));
    const d = findDiagnostic(r, 'SKIT_SKILL_NAME_MISMATCH');
    assert.deepEqual([d.file, d.line, d.column], ['skills/a/SKILL.md', 2, 1]);
    // as written, not after NFKC or trimming: a host loads "ａ" or "a " as another name
    for (const written of ['ａ', '"a "']) {
      const md = `---\nname: ${written}\ndescription: The a skill. Use it when testing.\n---\n\n# a\n`;
      assert.ok(codesOf(validateTree(kit([['a', 'skills/a']], { 'skills/a/SKILL.md': md }))).includes('SKIT_SKILL_NAME_MISMATCH'), written);
    }
  });

  it('applies every SKILL.md rule to contained skills, with the SKIT-relative file', () => {
    const r = validateTree(kit([['a', 'skills/a']], { 'skills/a/SKILL.md': '---\nname: a\nversion: 1\n---\n' }));
    assert.deepEqual(codesOf(r), ['SKILL_DESCRIPTION_MISSING', 'SKILL_FRONTMATTER_UNKNOWN_KEY']);
    assert.ok(r.diagnostics.every((d) => d.file === 'skills/a/SKILL.md'));
  });

  it('warns when a skill leaves out the per-skill declarations', () => {
    const tree = { 'README.md': readme('skit: 1\nid: acme/kit\nskills:\n  - name: a\n    path: skills/a\n    trigger_modes: [implicit]'), 'skills/a/SKILL.md': skillMd('a') };
    const d = findDiagnostic(validateTree(tree), 'SKIT_SKILL_DECLARATIONS_INCOMPLETE');
    assert.equal(d.severity, 'warning');
    assert.match(d.message, /mutation_scopes, capabilities, approval_expectations, expected_outputs/);
  });

  it('warns about a SKILL.md outside every declared skill and about a root SKILL.md', () => {
    const r = validateTree(kit([['a', 'skills/a']], { 'skills/a/SKILL.md': skillMd('a'), 'skills/stray/SKILL.md': skillMd('stray'), 'SKILL.md': skillMd('kit') }));
    assert.equal(r.ok, true);
    assert.deepEqual(codesOf(r, 'warning'), ['SKIT_ROOT_SKILL_IGNORED', 'SKIT_SKILL_UNDECLARED']);
    // a SKILL.md deeper inside a skill is just content of that skill
    assert.deepEqual(validateTree(kit([['a', 'skills/a']], { 'skills/a/SKILL.md': skillMd('a'), 'skills/a/templates/x/SKILL.md': 'x' })).diagnostics, []);
  });

  it('rejects SKILL.md links that traverse into a sibling or out of the skill', () => {
    const body = [
      'See [ok](references/a.md), [also ok](./references/../references/a.md) and [web](https://example.com/../x).',
      'Bad: [sibling](../b/SKILL.md) and ![img](../../shared/logo.png).',
      '[def]: ../../../../etc/passwd',
      '```',
      '[in code](../b/x.md)',
      '```',
      '[anchor](#steps) [abs](/usr/share/doc)',
    ].join('\n');
    const r = validateTree(kit([['a', 'skills/a'], ['b', 'skills/b']], { 'skills/a/SKILL.md': skillMd('a', '', body), 'skills/a/references/a.md': 'x', 'skills/b/SKILL.md': skillMd('b') }));
    const found = r.diagnostics.filter((d) => d.code === 'SKIT_SKILL_TRAVERSAL').map((d) => [d.line, d.message]);
    assert.deepEqual(found, [
      [7, 'link "../b/SKILL.md" reaches into the sibling skill at skills/b'],
      [7, 'link "../../shared/logo.png" points outside the skill directory (to shared/logo.png)'],
      [8, 'link "../../../../etc/passwd" points outside the SKIT'],
    ]);
  });

  it('reads links as CommonMark does: nested brackets, lines, fences of other lengths, code spans, HTML', () => {
    const traversals = (body: string) =>
      validateTree(kit([['a', 'skills/a'], ['b', 'skills/b']], { 'skills/a/SKILL.md': skillMd('a', '', body), 'skills/b/SKILL.md': skillMd('b') })).diagnostics.filter((d) => d.code === 'SKIT_SKILL_TRAVERSAL').length;
    const links = [
      '[a [b] c](../b/SKILL.md)',
      '[x](\n../b/SKILL.md)',
      '[multi\nline](../b/SKILL.md)',
      '[r]\n\n[r]:\n  ../b/SKILL.md',
      '~~~\n```\n~~~\n[x](../b/SKILL.md)',
      '````\n```\n````\n[x](../b/SKILL.md)',
      '![a [b]](../b/x.png)',
      '<a href="../b/SKILL.md">x</a>',
      '[esc\\]aped](../b/SKILL.md)',
    ];
    for (const body of links) assert.equal(traversals(body), 1, JSON.stringify(body));
    const notLinks = ['`[x](../b/SKILL.md)`', '````\n```\n[x](../b/SKILL.md)\n````', '``code with ` and [x](../b/SKILL.md)``', '[text]\n\n(../b/SKILL.md)'];
    for (const body of notLinks) assert.equal(traversals(body), 0, JSON.stringify(body));
  });
});
