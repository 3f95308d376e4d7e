import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { fixturesDir } from '../../test-support/index.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';
import { ANNOTATION_TYPES, completionSentinel, partialSentinel, sentinelRule } from './tags.js';
import { templateFor } from './templates/index.js';
import { splitLines } from './tokenize.js';
import type { Annotation } from './types.js';

/** Real protocol fragments, whole and cut, so random text keeps hitting the parser's edges. */
const TYPES = [...Object.keys(ANNOTATION_TYPES), 'ACME_SCAN'];
const REAL = [
  ...TYPES.map((t) => `<!-- FORGE:${t} -->`),
  ...TYPES.map((t) => `<!-- FORGE:${t}:COMPLETE -->`),
  ...TYPES.map((t) => `<!-- FORGE:${t}:PARTIAL -->`),
  ...TYPES.map((t) => `<!-- FORGE:${t}: https://x.example/${t} -->`),
  '<!-- INVESTIGATION:COMPLETE -->',
  '<!-- INVESTIGATION:PARTIAL -->',
  '<!--FORGE:BUILDER-->',
  '<!-- FORGE:',
  '-->',
  '<!--',
  '## Investigation Report',
  '## Pipeline Trajectory — #7',
  '## Review — SECURITY',
  '### Findings',
  '### Decomposition Assessment',
  '**Verdict**: CONFIRMED',
  '**NO** — reason',
  '**Files changed**: 2',
  '**Completed**: 2026-01-15T09:30:00Z',
  '| Phase | Result | Notes |',
  '|---|---|---|',
  '| a \\| b | c |',
  '- **Severity**: HIGH',
  '  **Location**: `a.ts:1`',
  '- [x] crit — PASS',
  '1. `a.ts`',
  'None',
];
const fragment = fc.oneof(
  fc.constantFrom(...REAL),
  fc.constantFrom(...REAL).chain((s) => fc.nat(s.length).map((n) => s.slice(0, n))),
  fc.constantFrom(...REAL).chain((s) => fc.nat(s.length).map((n) => s.slice(n))),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
);
const SENTINELS = [...TYPES.flatMap((t) => [...sentinelRule(t).complete, ...sentinelRule(t).partial]), 'INVESTIGATOR', 'FORGE:WRONG'];
/** an opening tag, some body, then a sentinel that may or may not belong to it */
const block = fc
  .tuple(
    fc.constantFrom(...TYPES),
    fc.array(fc.oneof(fc.constantFrom(...REAL.filter((r) => !r.includes('<!--'))), fc.string({ maxLength: 20 })), { maxLength: 8 }),
    fc.constantFrom(...SENTINELS),
    fc.constantFrom('COMPLETE', 'PARTIAL'),
  )
  .map(([type, body, name, which]) => [`<!-- FORGE:${type} -->`, ...body, `<!-- ${name}:${which} -->`].join('\n'));
const comment = fc
  .array(fc.tuple(fc.oneof({ arbitrary: fragment, weight: 4 }, { arbitrary: block, weight: 2 }), fc.constantFrom('\n', '\r\n', '', ' ', '\n\n')), { maxLength: 40 })
  .map((parts) => parts.map(([f, sep]) => f + sep).join(''));

/** Independent re-check of a complete annotation against the raw text. */
function assertHonestlyComplete(a: Annotation, text: string): void {
  const lines = splitLines(text);
  if (a.completion === 'sentinel') {
    const m = /^<!--\s*(.+?):COMPLETE\s*-->$/.exec(lines[a.endLine - 1].trim());
    assert.ok(m, `complete ${a.tag} does not end on a sentinel line: ${JSON.stringify(lines[a.endLine - 1])}`);
    assert.ok(sentinelRule(a.type).complete.includes(m[1]), `${m[1]} is not a completion sentinel of ${a.tag}`);
    assert.ok(a.endLine > a.line);
  } else if (a.completion === 'time-limited') {
    const m = /^<!--\s*(.+?):PARTIAL\s*-->$/.exec(lines[a.endLine - 1].trim());
    assert.ok(m && sentinelRule(a.type).timeLimited && sentinelRule(a.type).partial.includes(m[1]), `time-limited ${a.tag} does not end on its time-limited sentinel`);
  } else if (a.completion === 'structure') {
    assert.ok(templateFor(a.type), `${a.tag} complete by structure without a template`);
    assert.equal(sentinelRule(a.type).stated, false, `${a.tag} has a stated sentinel but was completed by structure`);
    // template parts the spec does not require may be missing (a warning); never a required one, never a foreign sentinel
    assert.ok(!a.diagnostics.some((d) => d.code === 'FORGE_FIELD_MISSING' && d.severity === 'error'), `${a.tag} complete by structure with missing required parts`);
    assert.ok(!a.diagnostics.some((d) => d.code === 'FORGE_SENTINEL_MISMATCH' || d.code === 'FORGE_TAG_MALFORMED'), `${a.tag} complete by structure after a foreign sentinel or a truncated tag`);
    assert.ok(a.body.trim() !== '', `${a.tag} complete by structure without a body`);
  } else {
    assert.equal(a.completion, 'presence');
    assert.ok(a.form === 'inline' || a.form === 'marker');
    assert.ok(lines[a.line - 1].includes(`FORGE:${a.type}`));
  }
}

describe('parser properties (fast-check)', () => {
  it('never throws on random comment text and never reports complete without the sentinel', () => {
    const seen = { sentinel: 0, structure: 0, interrupted: 0 };
    fc.assert(
      fc.property(comment, (text) => {
        const { annotations } = parseBody(text);
        for (const a of annotations) {
          assert.ok(['complete', 'partial', 'interrupted'].includes(a.status));
          if (a.completion === 'sentinel' || a.completion === 'structure') seen[a.completion]++;
          if (a.status === 'interrupted') seen.interrupted++;
          if (a.status === 'complete') assertHonestlyComplete(a, text);
          if (a.status === 'complete' && completionSentinel(a.type)) assert.equal(a.completion, sentinelRule(a.type).timeLimited && a.completion === 'time-limited' ? 'time-limited' : 'sentinel');
        }
      }),
      { numRuns: 2000 },
    );
    // the property is not vacuous: random text does produce sentinel-closed and interrupted annotations
    assert.ok(seen.sentinel > 5 && seen.interrupted > 20, JSON.stringify(seen));
  });

  it('a rendered annotation cut anywhere before its sentinel is never complete', () => {
    const samples = (['investigator', 'builder', 'architect', 'context', 'decomposed', 'skit-evidence'] as const).map((name) => {
      const type = name === 'skit-evidence' ? 'SKIT_EVIDENCE' : name.toUpperCase();
      const data = JSON.parse(readFileSync(join(fixturesDir, 'annotations', 'render', `${name}.json`), 'utf8'));
      return { type, text: renderAnnotation(type, data) };
    });
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.double({ min: 0, max: 1, noNaN: true }), ({ type, text }, f) => {
        const cut = text.slice(0, Math.floor(f * text.lastIndexOf('<!-- ', text.length - 1)));
        for (const a of parseBody(cut).annotations) if (a.type === type) assert.notEqual(a.status, 'complete');
      }),
      { numRuns: 500 },
    );
  });

  it('a partial sentinel never yields complete, except the time-limited completion of CONTEXT and ARCHITECT (4.1)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), comment, (type, middle) => {
        const text = `<!-- FORGE:${type} -->\n${middle.replace(/</g, '')}\n${partialSentinel(type)}`;
        const a = parseBody(text).annotations[0];
        assert.equal(a.type, type);
        const expected = sentinelRule(type).timeLimited ? ['complete', 'time-limited'] : ['partial', null];
        if (ANNOTATION_TYPES[type]?.form !== 'marker' && ANNOTATION_TYPES[type]?.form !== 'inline') assert.deepEqual([a.status, a.completion], expected);
      }),
      { numRuns: 300 },
    );
  });
});
