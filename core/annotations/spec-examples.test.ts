import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../../test-support/index.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';

/**
 * Every annotation example of the spec (fixtures/annotations/spec/, extracted verbatim) parses to
 * its reviewed expected structure. Set SF_UPDATE_FIXTURES=1 to rewrite the expectations after a
 * deliberate change, then review the diff.
 */
const dir = join(fixturesDir, 'annotations', 'spec');
const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { examples: { file: string; section: string; specLine: number }[] };

describe('spec examples (fixtures/annotations/spec)', () => {
  it('covers every annotation example block of the spec', () => {
    assert.equal(index.examples.length, 24);
    for (const s of ['3.1', '3.2', '3.3', '3.4', '4.1', '4.2', '4.3', '8', '9.1']) assert.ok(index.examples.some((e) => e.section === s), s);
  });

  for (const ex of index.examples) {
    it(`${ex.file} (spec ${ex.section}, line ${ex.specLine}) parses to the expected structure`, () => {
      const parsed = parseBody(readFileSync(join(dir, ex.file), 'utf8'));
      const expectedPath = join(dir, ex.file.replace(/\.md$/, '.expected.json'));
      if (process.env.SF_UPDATE_FIXTURES === '1') writeFileSync(expectedPath, JSON.stringify(parsed, null, 2) + '\n');
      assert.deepEqual(parsed, JSON.parse(readFileSync(expectedPath, 'utf8')));
    });
  }

  it('the worked example (9.1) parses complete and clean, and renders back byte for byte', () => {
    for (const file of ['9.1-investigator.md', '9.1-builder.md', '9.1-trajectory.md']) {
      const text = readFileSync(join(dir, file), 'utf8').trimEnd();
      const { annotations, diagnostics } = parseBody(text);
      assert.equal(annotations.length, 1);
      const [a] = annotations;
      assert.equal(a.status, 'complete', file);
      assert.deepEqual([...diagnostics, ...a.diagnostics], [], file);
      assert.equal(renderAnnotation(a.type, a.fields), text, file);
    }
  });

  it('reads the fields the consumer routes on from the worked example', () => {
    const inv = parseBody(readFileSync(join(dir, '9.1-investigator.md'), 'utf8')).annotations[0];
    assert.equal(inv.sentinel, '<!-- INVESTIGATION:COMPLETE -->');
    assert.deepEqual(
      { verdict: inv.fields?.verdict, confidence: inv.fields?.confidence, severity: inv.fields?.severity, taskType: inv.fields?.taskType, decomposition: inv.fields?.decomposition },
      { verdict: 'CONFIRMED', confidence: 'HIGH', severity: 'HIGH', taskType: 'Bug Fix', decomposition: { assessment: 'NO', reason: 'single-file fix.' } },
    );
    const b = parseBody(readFileSync(join(dir, '9.1-builder.md'), 'utf8')).annotations[0];
    assert.deepEqual([b.fields?.branch, b.fields?.commits, b.fields?.filesChanged], ['fix/null-billing-profile-128', ['a1b2c3d'], 2]);
    const t = parseBody(readFileSync(join(dir, '9.1-trajectory.md'), 'utf8')).annotations[0];
    assert.equal(t.completion, 'structure');
    assert.equal(t.fields?.number, 128);
    assert.deepEqual((t.fields?.phases as { phase: string }[]).map((p) => p.phase), ['Investigation', 'Build', 'Review + Merge', 'Close']);
  });

  it('spec templates with {placeholders} report each enum violation with the allowed values', () => {
    const a = parseBody(readFileSync(join(dir, '4.1-investigator.md'), 'utf8')).annotations[0];
    const enums = a.diagnostics.filter((d) => d.code === 'FORGE_ENUM_INVALID');
    assert.deepEqual(enums.map((d) => d.line), [4, 5, 6, 7, 28]);
    assert.match(enums[0].message, /expected one of CONFIRMED, PARTIAL, INVALID/);
    assert.ok(enums.every((d) => d.severity === 'error' && d.hint));
  });
});
