import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { fixturesDir } from '../../test-support/index.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';
import { ANNOTATION_TYPES, completionSentinel, partialSentinel, sentinelRule } from './tags.js';

const data = (name: string) => JSON.parse(readFileSync(join(fixturesDir, 'annotations', 'render', `${name}.json`), 'utf8')) as Record<string, unknown>;

/** fixture name -> TYPE */
const FIXTURES: [string, string][] = [
  ['investigator', 'INVESTIGATOR'],
  ['decomposed', 'DECOMPOSED'],
  ['contract', 'CONTRACT'],
  ['context', 'CONTEXT'],
  ['architect', 'ARCHITECT'],
  ['builder', 'BUILDER'],
  ['reviewer', 'REVIEWER'],
  ['reviewer-approved', 'REVIEWER'],
  ['trajectory', 'TRAJECTORY'],
  ['skit-evidence', 'SKIT_EVIDENCE'],
];

function refusal(fn: () => unknown): { message: string; hint?: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(isSfError(e, 'SF_E_ANNOTATION'), String(e));
    return { message: e.message, hint: e.hint };
  }
  assert.fail('expected render to refuse');
}

describe('renderAnnotation', () => {
  for (const [name, type] of FIXTURES) {
    it(`${name}: render -> parse -> render is identical, and the parse is complete and clean`, () => {
      const text = renderAnnotation(type, data(name));
      const lines = text.split('\n');
      assert.equal(lines[0], `<!-- FORGE:${type} -->`);
      const sentinel = completionSentinel(type);
      if (sentinel) assert.equal(lines[lines.length - 1], sentinel);
      const { annotations, diagnostics } = parseBody(text);
      assert.equal(annotations.length, 1);
      const [a] = annotations;
      assert.equal(a.status, 'complete');
      assert.deepEqual([...diagnostics, ...a.diagnostics.filter((d) => d.severity !== 'info')], []);
      assert.deepEqual(a.fields, data(name));
      assert.equal(renderAnnotation(type, a.fields), text);
    });

    it(`${name}: --partial ends with the partial sentinel and round-trips as partial (time-limited complete for CONTEXT, ARCHITECT)`, () => {
      const text = renderAnnotation(type, data(name), { partial: true });
      assert.equal(text.split('\n').at(-1), partialSentinel(type));
      const a = parseBody(text).annotations[0];
      assert.deepEqual([a.status, a.completion], sentinelRule(type).timeLimited ? ['complete', 'time-limited'] : ['partial', null]);
      assert.equal(renderAnnotation(type, a.fields, { partial: true }), text);
    });
  }

  it('refuses a missing required field and names it in the message and hint', () => {
    const { verdict: _verdict, ...rest } = data('investigator');
    const r = refusal(() => renderAnnotation('INVESTIGATOR', rest));
    assert.match(r.message, /required field "verdict" \(\*\*Verdict\*\*\) is missing/);
    assert.match(r.hint ?? '', /"verdict".*--partial/);
  });

  it('renders a partial annotation without its required fields', () => {
    const text = renderAnnotation('CONTEXT', { number: 3, knownPitfalls: 'x' }, { partial: true });
    assert.equal(text, '<!-- FORGE:CONTEXT -->\n## Implementation Context for #3\n\n### Known Pitfalls for This Area\nx\n\n<!-- FORGE:CONTEXT:PARTIAL -->');
    assert.equal(renderAnnotation('INVESTIGATOR', { verdict: 'CONFIRMED' }, { partial: true }).split('\n').at(-1), '<!-- INVESTIGATION:PARTIAL -->');
  });

  it('refuses enum values outside the spec, unknown keys and malformed rows', () => {
    assert.match(refusal(() => renderAnnotation('INVESTIGATOR', { ...data('investigator'), verdict: 'confirmed' })).message, /verdict is "confirmed"; expected one of CONFIRMED, PARTIAL, INVALID/);
    assert.match(refusal(() => renderAnnotation('BUILDER', { ...data('builder'), branche: 'x' })).message, /unknown key "branche"/);
    assert.match(refusal(() => renderAnnotation('ARCHITECT', { number: 1, affectedPaths: [{ file: 'a', symbol: 'b', change: 'c', whyy: 'd' }] })).message, /unknown key "whyy".*affectedPaths\[0\]\.why \(Why\) is missing/);
    assert.match(refusal(() => renderAnnotation('ARCHITECT', { number: 1, affectedPaths: [{ file: 'a', symbol: 'b', change: 'c', why: 'd' }], risks: [{ risk: 'r', severity: 'CRITICAL', mitigation: 'm' }] })).message, /risks\[0\]\.severity is "CRITICAL"; expected one of HIGH, MEDIUM, LOW/);
    assert.match(refusal(() => renderAnnotation('TRAJECTORY', { ...data('trajectory'), completed: 'yesterday' })).message, /not an ISO 8601 timestamp/);
    assert.match(refusal(() => renderAnnotation('BUILDER', { ...data('builder'), filesChanged: '2' })).message, /expected a whole number/);
  });

  it('refuses content that would not parse back (a FORGE tag or a ### heading inside a section, a newline in a cell)', () => {
    assert.match(refusal(() => renderAnnotation('CONTEXT', { number: 1, pastBugs: 'a\n<!-- FORGE:CONTEXT:COMPLETE -->' })).message, /would be read as a FORGE tag/);
    assert.match(refusal(() => renderAnnotation('CONTEXT', { number: 1, pastBugs: 'a\n### Sub' })).message, /would start a new ### section/);
    assert.match(refusal(() => renderAnnotation('CONTRACT', { ...data('contract'), deliverables: [{ file: 'a\nb', change: 'c', why: 'd' }] })).message, /must be a single line/);
  });

  it('escapes | in table cells and reads it back', () => {
    const d = { ...data('contract'), deliverables: [{ file: 'a|b.ts', change: 'x \\| y', why: 'z' }] };
    const text = renderAnnotation('CONTRACT', d);
    assert.ok(text.includes('| a\\|b.ts | x \\\\| y | z |'));
    assert.deepEqual(parseBody(text).annotations[0].fields?.deliverables, d.deliverables);
  });

  it('renders inline values and markers', () => {
    assert.equal(renderAnnotation('KNOWLEDGE_GIST', data('knowledge-gist')), '<!-- FORGE:KNOWLEDGE_GIST: https://gist.example.com/acme/5f1c -->');
    assert.equal(renderAnnotation('GATE_FAILED', undefined), '<!-- FORGE:GATE_FAILED -->');
    assert.match(refusal(() => renderAnnotation('PRIOR_GIST', {})).message, /"value" is missing/);
    assert.match(refusal(() => renderAnnotation('ACME_SCAN', {})).message, /not a type this implementation knows/);
  });

  it('keeps extraSections after the template sections', () => {
    const text = renderAnnotation('BUILDER', { ...data('builder'), extraSections: [{ heading: 'Notes', content: 'see a.ts' }] });
    assert.ok(text.endsWith('### Notes\nsee a.ts\n\n<!-- FORGE:BUILDER:COMPLETE -->'));
    assert.match(refusal(() => renderAnnotation('BUILDER', { ...data('builder'), extraSections: [{ heading: 'Changes', content: 'x' }] })).message, /is a section of FORGE:BUILDER/);
  });
});

describe('renderAnnotation: ordinary HTML comments in text', () => {
  it('keeps a non-protocol <!-- X:COMPLETE --> comment, which parses back as text', () => {
    const text = renderAnnotation('CONTEXT', { number: 2, pastBugs: '<!-- TODO:COMPLETE -->\n#1' });
    assert.equal(parseBody(text).annotations[0].fields?.pastBugs, '<!-- TODO:COMPLETE -->\n#1');
    assert.throws(() => renderAnnotation('CONTEXT', { number: 2, pastBugs: '<!-- INVESTIGATION:COMPLETE -->' }), /would be read as a FORGE tag/);
  });
});

describe('renderAnnotation: inline values and markers round-trip', () => {
  for (const [type, info] of Object.entries(ANNOTATION_TYPES).filter(([, i]) => i.form !== 'block')) {
    it(`${type}`, () => {
      const text = renderAnnotation(type, info.form === 'inline' ? { value: `https://x.example/${type}` } : undefined);
      const [a] = parseBody(text).annotations;
      assert.deepEqual([a.type, a.form, a.status, a.diagnostics], [type, info.form, 'complete', []]);
      assert.equal(renderAnnotation(a.type, a.value === undefined ? undefined : { value: a.value }), text);
    });
  }
});
