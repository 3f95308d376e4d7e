import assert from 'node:assert/strict';
import { validateSkillMd } from './skill-md.js';

const run = (frontmatter: string, dirName?: string) => validateSkillMd(`---\n${frontmatter}\n---\n\nBody\n`, { file: 'skills/x/SKILL.md', dirName });
const codes = (r: ReturnType<typeof run>) => r.diagnostics.map((d) => `${d.severity}:${d.code}`).sort();

describe('SKILL.md validation', () => {
  it('accepts a conforming skill and returns its name and frontmatter', () => {
    const r = run('name: x\ndescription: Does x.\nmetadata:\n  owner: me', 'x');
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.name, 'x');
    assert.deepEqual(r.frontmatter, { name: 'x', description: 'Does x.', metadata: { owner: 'me' } });
  });

  it('puts each finding on the line and column of its key', () => {
    const r = run('name: x\ndescription: Does x.\nversion: 2\nmetadata:\n  n: 1', 'x');
    const unknown = r.diagnostics.find((d) => d.code === 'SKILL_FRONTMATTER_UNKNOWN_KEY');
    assert.deepEqual([unknown?.file, unknown?.line, unknown?.column], ['skills/x/SKILL.md', 4, 1]);
    const meta = r.diagnostics.find((d) => d.code === 'SKILL_SPEC_METADATA');
    assert.deepEqual([meta?.severity, meta?.line, meta?.column], ['warning', 6, 3]);
    assert.ok(unknown?.hint && meta?.hint);
  });

  it('reports one finding per key: an error hides the spec warning for the same key', () => {
    // Upper-case fails both skills-ref (error) and the spec pattern (warning): only the error remains
    assert.deepEqual(codes(run('name: Abc\ndescription: d', 'Abc')), ['error:SKILL_NAME_NOT_LOWERCASE']);
    // a 600-character compatibility is an error; the schema's maxLength warning is not repeated
    assert.deepEqual(codes(run(`name: x\ndescription: d\ncompatibility: ${'c'.repeat(600)}`, 'x')), ['error:SKILL_COMPATIBILITY_TOO_LONG']);
  });

  it('reports every name problem skills-ref reports', () => {
    assert.deepEqual(codes(run('name: -A--b_\ndescription: d', '-A--b_')), [
      'error:SKILL_NAME_CONSECUTIVE_HYPHENS',
      'error:SKILL_NAME_HYPHEN_EDGE',
      'error:SKILL_NAME_INVALID_CHARS',
      'error:SKILL_NAME_NOT_LOWERCASE',
    ]);
  });

  it('checks the directory name only when one is given, after NFKC', () => {
    assert.deepEqual(codes(run('name: x\ndescription: d')), []);
    assert.deepEqual(codes(run('name: x\ndescription: d', 'y')), ['error:SKILL_NAME_DIR_MISMATCH']);
    assert.deepEqual(codes(run('name: ﬁx\ndescription: d', 'fix')), ['warning:SKILL_SPEC_NAME']);
  });

  it('requires string name and description (deliberate difference from skills-ref)', () => {
    assert.deepEqual(codes(run('name: 12\ndescription: [a, b]', '12')), ['error:SKILL_DESCRIPTION_NOT_STRING', 'error:SKILL_NAME_NOT_STRING']);
    const binary = run('name: x\ndescription: !!binary aGVsbG8=', 'x').diagnostics.find((d) => d.code === 'SKILL_DESCRIPTION_NOT_STRING');
    assert.match(binary?.message ?? '', /binary data/);
  });

  it('counts description length in UTF-16 units, untrimmed, like skills-ref', () => {
    assert.deepEqual(codes(run(`name: x\ndescription: "${'é'.repeat(1024)}"`, 'x')), []);
    assert.deepEqual(codes(run(`name: x\ndescription: "${'😀'.repeat(513)}"`, 'x')), ['error:SKILL_DESCRIPTION_TOO_LONG']);
  });

  it('stops after frontmatter problems that leave nothing to check', () => {
    const r = validateSkillMd('no frontmatter', { file: 'SKILL.md' });
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.line, d.column]), [['SKILL_FRONTMATTER_MISSING', 1, 1]]);
    assert.equal(r.frontmatter, undefined);
  });
});
