import assert from 'node:assert/strict';
import { codesOf, findDiagnostic, readme, scaffoldTree, skillMd, validateTree } from '../../test-support/skit-layout.js';
import { localFingerprint } from './provisional-id.js';

describe('SKIT validation: descriptor and SKIT kind', () => {
  it('accepts what `sf skit init` scaffolds with no errors and no warnings', () => {
    const r = validateTree(scaffoldTree('acme/kit'));
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.ok, true);
    assert.equal(r.layout?.id, 'acme/kit');
    assert.equal(r.layout?.provisional, false);
    assert.deepEqual(r.layout?.skills.map((s) => [s.name, s.path, s.defaultEnabled, s.shared.length]), [
      ['review', 'skills/review', true, 1],
      ['summarize', 'skills/summarize', true, 0],
    ]);
    assert.equal(r.layout?.files.length, 4);
    assert.equal((r.frontmatter as { id: string }).id, 'acme/kit');
  });

  it('fails with SKIT_DESCRIPTOR_MISSING when there is neither a SKIT README nor a SKILL.md', () => {
    assert.deepEqual(codesOf(validateTree({})), ['SKIT_DESCRIPTOR_MISSING']);
    const r = validateTree({ 'README.md': '# Just docs\n', 'notes.md': 'x' });
    assert.deepEqual(codesOf(r), ['SKIT_DESCRIPTOR_MISSING']);
    assert.equal(r.layout, undefined);
    assert.equal(r.ok, false);
  });

  it('treats README frontmatter without a skit key as documentation next to a root SKILL.md', () => {
    const r = validateTree({ 'README.md': readme('title: Docs'), 'SKILL.md': skillMd('tool') }, { rootName: 'tool' });
    assert.equal(r.ok, true);
    assert.equal(findDiagnostic(r, 'SKIT_README_NOT_DESCRIPTOR').severity, 'info');
    assert.equal(r.layout?.provisional, true);
  });

  it('gives a single-skill SKIT the owner/name a registry assigned, not a provisional identity', () => {
    const r = validateTree({ 'SKILL.md': skillMd('tool') }, { rootName: 'tool', provisionalId: 'alice/tool' });
    assert.equal(r.ok, true);
    assert.equal(r.layout?.id, 'alice/tool');
    assert.equal(r.layout?.provisional, false);
    assert.ok(!codesOf(r).includes('SKIT_ID_PROVISIONAL'));
  });

  it('reads README frontmatter without a skit key as a broken descriptor when there is no SKILL.md', () => {
    const r = validateTree({ 'README.md': readme('id: acme/kit\nskills: []') });
    assert.ok(codesOf(r).includes('SKIT_FRONTMATTER_MISSING_KEY'));
  });

  it('maps schema violations to codes placed on the offending key', () => {
    const r = validateTree({
      'README.md': readme(`skit: 2
id: Acme/Kit
skills:
  - name: a
    path: skills/a
    default_enabled: "yes"
    trigger_modes: [model]
    colour: red
capabilities:
  executables: notalist`),
      'skills/a/SKILL.md': skillMd('a'),
    });
    const at = (code: string, message: RegExp) => {
      const d = r.diagnostics.find((x) => x.code === code && message.test(x.message));
      assert.ok(d, `${code} ${message} not in ${JSON.stringify(r.diagnostics.map((x) => x.message))}`);
      return [d.file, d.line, d.column];
    };
    assert.deepEqual(at('SKIT_FRONTMATTER_VALUE', /^skit must be 1/), ['README.md', 2, 1]);
    assert.deepEqual(at('SKIT_FRONTMATTER_VALUE', /^id "Acme\/Kit" does not have the required form/), ['README.md', 3, 1]);
    assert.deepEqual(at('SKIT_FRONTMATTER_TYPE', /default_enabled must be boolean/), ['README.md', 7, 5]);
    assert.deepEqual(at('SKIT_FRONTMATTER_VALUE', /trigger_modes\[0\] must be one of: explicit, implicit/), ['README.md', 8, 21]);
    assert.deepEqual(at('SKIT_FRONTMATTER_UNKNOWN_KEY', /skills\[0\]\.colour/), ['README.md', 9, 5]);
    assert.deepEqual(at('SKIT_FRONTMATTER_TYPE', /capabilities\.executables must be array/), ['README.md', 11, 3]);
  });

  it('reports a missing required key at its parent', () => {
    const r = validateTree({ 'README.md': readme('skit: 1\nskills:\n  - name: a'), 'x.md': '' });
    const id = r.diagnostics.find((d) => d.message.includes('"id"'));
    assert.deepEqual([id?.code, id?.line], ['SKIT_FRONTMATTER_MISSING_KEY', 2]);
    const path = r.diagnostics.find((d) => d.message.includes('skills[0].path'));
    assert.deepEqual([path?.code, path?.line, path?.column], ['SKIT_FRONTMATTER_MISSING_KEY', 4, 5]);
  });

  it('reports README frontmatter problems: BOM, unclosed, bad YAML', () => {
    const kit = scaffoldTree();
    assert.ok(codesOf(validateTree({ ...kit, 'README.md': `\uFEFF${kit['README.md'] as string}` })).includes('SKIT_FRONTMATTER_BOM'));
    assert.deepEqual(codesOf(validateTree({ 'README.md': '---\nskit: 1\nid: a/b\n' })), ['SKIT_FRONTMATTER_UNCLOSED']);
    const broken = validateTree({ 'README.md': '---\nskit: 1\nid: [a\n---\n', 'SKILL.md': skillMd('x') });
    assert.deepEqual(codesOf(broken), ['SKIT_FRONTMATTER_YAML']);
    assert.equal(broken.layout, undefined);
  });

  it('reserves the provisional owner for SKITs that are not Forge releases', () => {
    const kit = scaffoldTree('provisional/abc');
    assert.deepEqual(codesOf(validateTree(kit)), ['SKIT_ID_RESERVED']);
  });

  it('uses a supplied descriptor instead of README.md, without file positions', () => {
    const kit = scaffoldTree();
    const descriptor = { skit: 1, id: 'acme/other', skills: [{ name: 'review', path: 'skills/review', colour: 1 }] };
    const r = validateTree(kit, { descriptor });
    assert.equal(r.layout?.id, 'acme/other');
    assert.deepEqual(r.layout?.skills.map((s) => s.name), ['review']);
    const unknown = findDiagnostic(r, 'SKIT_FRONTMATTER_UNKNOWN_KEY');
    assert.equal(unknown.file, undefined);
    assert.equal(r.frontmatter, descriptor);
  });

  it('gives a synthesized descriptor the provisional id and discloses its findings as warnings', () => {
    const tree = {
      'skills/a/SKILL.md': skillMd('a', '', 'See [b](../b/SKILL.md).\n'),
      'skills/a/run.sh': { content: '#!/bin/sh\necho hi\n', exec: true },
      'skills/b/SKILL.md': skillMd('b'),
    };
    const descriptor = { skit: 1, skills: [{ name: 'a', path: 'skills/a' }, { name: 'b', path: 'skills/b' }] };
    const r = validateTree(tree, { descriptor, provisionalId: 'provisional/f00d' });
    assert.equal(r.ok, true);
    assert.equal(r.layout?.id, 'provisional/f00d');
    assert.equal(r.layout?.provisional, true);
    assert.deepEqual(codesOf(r, 'warning'), ['SKIT_EXECUTABLE_UNDECLARED', 'SKIT_SKILL_TRAVERSAL']);
  });

  it('makes a directory with only a SKILL.md a single-skill SKIT with a provisional id', () => {
    const text = skillMd('solo');
    const r = validateTree({ 'SKILL.md': text, 'references/a.md': 'x' }, { rootName: 'solo' });
    assert.equal(r.ok, true);
    assert.deepEqual(codesOf(r, 'warning'), []);
    const outside = validateTree({ 'SKILL.md': skillMd('solo', '', '[up](../elsewhere.md)\n') }, { rootName: 'solo' });
    assert.deepEqual([outside.ok, codesOf(outside, 'warning')], [true, ['SKIT_SKILL_TRAVERSAL']]);
    assert.equal(r.layout?.id, `provisional/${localFingerprint('solo', text)}`);
    assert.match(r.layout!.id, /^provisional\/[0-9a-f]{24}$/);
    assert.deepEqual(r.layout?.skills, [{ name: 'solo', path: '', defaultEnabled: true, shared: [] }]);
    assert.equal((r.frontmatter as { name: string }).name, 'solo');
    assert.equal(findDiagnostic(r, 'SKIT_ID_PROVISIONAL').severity, 'info');
  });

  it('uses the supplied provisional id and checks the single skill against its directory name', () => {
    const r = validateTree({ 'SKILL.md': skillMd('solo') }, { rootName: 'elsewhere', provisionalId: 'provisional/abc' });
    assert.equal(r.layout?.id, 'provisional/abc');
    assert.deepEqual(codesOf(r), ['SKILL_NAME_DIR_MISMATCH']);
    const lower = validateTree({ 'skill.md': skillMd('solo') }, { rootName: 'solo' });
    assert.deepEqual(codesOf(lower, 'warning'), ['SKILL_MD_LOWERCASE']);
  });
});
