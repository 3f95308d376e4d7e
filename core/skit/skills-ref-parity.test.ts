import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validate as skillsRefValidate } from 'skills-ref';
import { fixturesDir } from '../../test-support/index.js';
import { validateSkillDir } from './skill-dir.js';

/**
 * Our SKILL.md validator and the reference validator (npm skills-ref) must reach the same verdict
 * on every corpus entry, except the documented deliberate differences (docs/validation-rules.md).
 */

interface CorpusCase {
  id: string;
  path: string;
  expect: 'valid' | 'invalid';
  skillsRef: 'valid' | 'invalid';
  codes: string[];
  note?: string;
  difference?: string;
}

const corpusDir = join(fixturesDir, 'skills-corpus');

describe('skills-ref parity on fixtures/skills-corpus', () => {
  let cases: CorpusCase[] = [];

  before(async () => {
    cases = (JSON.parse(await readFile(join(corpusDir, 'cases.json'), 'utf8')) as { cases: CorpusCase[] }).cases;
  });

  it('has at least 40 cases, both valid and invalid, with unique ids', () => {
    assert.ok(cases.length >= 40, `${cases.length} cases`);
    assert.ok(cases.some((c) => c.expect === 'valid') && cases.some((c) => c.expect === 'invalid'));
    assert.equal(new Set(cases.map((c) => c.id)).size, cases.length);
  });

  it('documents every verdict difference with a reason', () => {
    for (const c of cases) {
      if (c.expect !== c.skillsRef) assert.ok(c.difference && c.difference.length > 20, `${c.id} differs without a reason`);
      else assert.equal(c.difference, undefined, `${c.id} has a difference note but the verdicts agree`);
    }
  });

  it('agrees with skills-ref on every case that is not a documented difference', async () => {
    const mismatches: string[] = [];
    for (const c of cases) {
      const dir = join(corpusDir, c.path);
      const theirs = (await skillsRefValidate(dir)).length === 0 ? 'valid' : 'invalid';
      const ours = (await validateSkillDir(dir)).diagnostics.some((d) => d.severity === 'error') ? 'invalid' : 'valid';
      if (theirs !== c.skillsRef) mismatches.push(`${c.id}: skills-ref said ${theirs}, the manifest expects ${c.skillsRef}`);
      if (ours !== c.expect) mismatches.push(`${c.id}: we said ${ours}, the manifest expects ${c.expect}`);
      if (!c.difference && ours !== theirs) mismatches.push(`${c.id}: we said ${ours}, skills-ref said ${theirs}`);
    }
    assert.deepEqual(mismatches, []);
  });

  it('reports exactly the expected diagnostic codes for every case', async () => {
    const wrong: string[] = [];
    for (const c of cases) {
      const codes = (await validateSkillDir(join(corpusDir, c.path))).diagnostics.map((d) => d.code).sort();
      if (JSON.stringify(codes) !== JSON.stringify(c.codes)) wrong.push(`${c.id}: got [${codes}] expected [${c.codes}]`);
    }
    assert.deepEqual(wrong, []);
  });
});
