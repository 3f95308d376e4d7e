import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isSfError } from '../errors/index.js';
import { CONFIDENCE_LEVELS, INVESTIGATION_VERDICTS, RISK_SEVERITIES, REVIEW_VERDICTS, SEVERITIES, TASK_TYPES } from './enums.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';
import { sentinelRule } from './tags.js';

/** Words include Markdown and protocol punctuation so the escaping and guards are exercised. */
const word = fc.stringMatching(/^[A-Za-z0-9_.:#()|`*\\/—-]{1,8}$/);
const line = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const text = fc.array(line, { minLength: 1, maxLength: 4 }).map((l) => l.join('\n'));
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const sha = fc.stringMatching(/^[0-9a-f]{7,12}$/);
const path = fc.stringMatching(/^[a-z0-9_./|*#-]{1,20}$/);
const noUndefined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const generators: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  INVESTIGATOR: fc
    .record({
      verdict: fc.constantFrom(...INVESTIGATION_VERDICTS),
      confidence: fc.constantFrom(...CONFIDENCE_LEVELS),
      severity: fc.constantFrom(...SEVERITIES),
      taskType: fc.constantFrom(...TASK_TYPES),
      whatWasClaimed: opt(text),
      rootCause: opt(text),
      affectedFiles: opt(fc.array(line, { minLength: 1, maxLength: 4 })),
      decomposition: fc.record({ assessment: fc.constantFrom('YES', 'NO'), reason: line }),
    })
    .map(noUndefined),
  BUILDER: fc
    .record({
      branch: path,
      commits: fc.array(sha, { minLength: 1, maxLength: 3 }),
      filesChanged: fc.nat(50),
      approach: opt(text),
      changes: opt(fc.array(fc.record({ file: path, change: line }), { minLength: 1, maxLength: 3 })),
      acceptanceStatus: opt(fc.array(fc.record({ checked: fc.boolean(), criterion: line, result: fc.constantFrom('PASS', 'FAIL') }), { minLength: 1, maxLength: 3 })),
      testingChecklist: opt(fc.array(fc.record({ checked: fc.boolean(), text: line }), { minLength: 1, maxLength: 3 })),
    })
    .map(noUndefined),
  REVIEWER: fc.record({
    agentType: fc.constantFrom('SECURITY', 'LOGIC', 'DATABASE'),
    verdict: fc.constantFrom(...REVIEW_VERDICTS),
    findings: fc.array(fc.record({ severity: fc.constantFrom(...SEVERITIES), location: word, issue: line, suggestedFix: line, prevention: line }), { maxLength: 3 }),
  }),
  ARCHITECT: fc
    .record({
      number: fc.integer({ min: 1, max: 99999 }),
      affectedPaths: fc.array(fc.record({ file: line, symbol: line, change: line, why: line }), { minLength: 1, maxLength: 3 }),
      implementationOrder: opt(fc.array(fc.record({ step: line }), { minLength: 1, maxLength: 3 })),
      risks: opt(fc.array(fc.record({ risk: line, severity: fc.constantFrom(...RISK_SEVERITIES), mitigation: line }), { minLength: 1, maxLength: 2 })),
      filesToRead: opt(fc.array(fc.record({ file: path, why: line }), { minLength: 1, maxLength: 2 })),
    })
    .map(noUndefined),
  TRAJECTORY: fc.record({
    number: fc.integer({ min: 1, max: 99999 }),
    phases: fc.array(fc.record({ phase: fc.constantFrom('Build', 'Close', 'Quality Gate'), result: line, notes: line }), { minLength: 1, maxLength: 4 }),
    decisions: line,
    anomalies: line,
    completed: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  }),
  CONTEXT: fc.record({ number: fc.integer({ min: 1, max: 99999 }), knownPitfalls: text, pastBugs: text }),
};

describe('render -> parse -> render (fast-check)', () => {
  for (const [type, arb] of Object.entries(generators)) {
    it(`${type}: whatever renders parses back to the same fields and renders identically`, () => {
      let rendered = 0;
      fc.assert(
        fc.property(arb, fc.boolean(), (data, partial) => {
          let text: string;
          try {
            text = renderAnnotation(type, data, { partial });
          } catch (e) {
            // refusing is allowed (e.g. a "### " line or a backtick in a branch); throwing anything else is not
            assert.ok(isSfError(e, 'SF_E_ANNOTATION'), String(e));
            return;
          }
          rendered++;
          const { annotations } = parseBody(text);
          assert.equal(annotations.length, 1, text);
          // CONTEXT and ARCHITECT: the partial sentinel completes them, time-limited (4.1)
          assert.equal(annotations[0].status, partial && !sentinelRule(type).timeLimited ? 'partial' : 'complete', text);
          assert.equal(renderAnnotation(type, annotations[0].fields, { partial }), text);
        }),
        { numRuns: 150 },
      );
      assert.ok(rendered > 75, `only ${rendered} of 150 generated ${type} annotations rendered`);
    });
  }
});
