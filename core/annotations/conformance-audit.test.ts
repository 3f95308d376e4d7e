import assert from 'node:assert/strict';
import { formatConformanceReport, runConformanceCheck } from './check.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';
import { isIsoTimestamp } from './template/codecs-text.js';
import { parseThread } from './thread.js';

/** Regression tests for the conformance audit (defects 1-6 of the FORGE v1.0 audit). */

const errors = (list: { severity: string }[]) => list.filter((d) => d.severity === 'error');
const check = (body: string, require: string[]) => runConformanceCheck(parseThread([{ index: 0, body }]), { require });

describe('conformance audit: unknown types are never an error (7.2.4, defect 1)', () => {
  const SCAN = '<!-- FORGE:ACME_SECURITY_SCAN -->\n## Scan\nno issues\n\n';

  it('the generic sentinel closes an unknown type, bare or FORGE:-prefixed', () => {
    for (const [sentinel, status] of [
      ['<!-- ACME_SECURITY_SCAN:COMPLETE -->', 'complete'],
      ['<!-- FORGE:ACME_SECURITY_SCAN:COMPLETE -->', 'complete'],
      ['<!-- ACME_SECURITY_SCAN:PARTIAL -->', 'partial'],
      ['<!-- FORGE:ACME_SECURITY_SCAN:PARTIAL -->', 'partial'],
    ]) {
      const { annotations, diagnostics } = parseBody(SCAN + sentinel);
      assert.deepEqual(annotations.map((a) => [a.type, a.kind, a.status]), [['ACME_SECURITY_SCAN', 'unknown', status]], sentinel);
      assert.deepEqual(errors([...diagnostics, ...annotations[0].diagnostics]), [], sentinel);
    }
    const partial = parseBody('<!-- FORGE:ACME_SCAN -->\nx\n<!-- ACME_SCAN:PARTIAL -->').annotations[0];
    assert.equal(partial.status, 'partial');
  });

  it('check --require of a complete unknown type passes', () => {
    const r = check(SCAN + '<!-- ACME_SECURITY_SCAN:COMPLETE -->', ['ACME_SECURITY_SCAN']);
    assert.equal(r.ok, true);
  });

  it('an empty inline value or a foreign sentinel of an unknown type is not an error', () => {
    const link = parseBody('<!-- FORGE:ACME_LINK: -->').annotations[0];
    assert.equal(link.kind, 'unknown');
    assert.deepEqual(errors(link.diagnostics), []);
    const cut = parseBody(SCAN + '<!-- FORGE:BUILDER:COMPLETE -->');
    assert.deepEqual(errors([...cut.diagnostics, ...cut.annotations.flatMap((a) => a.diagnostics)]), []);
    assert.equal(cut.annotations[0].status, 'interrupted');
  });

  it('a known type keeps its own rules: an empty inline value of a known type is still an error', () => {
    assert.equal(parseBody('<!-- FORGE:PRIOR_GIST: -->').annotations[0].diagnostics[0].severity, 'error');
  });
});

describe('conformance audit: the generic 3.2/3.3 sentinel for types that state none (defect 2)', () => {
  const CONTRACT = '<!-- FORGE:CONTRACT -->\n## Builder Contract\n\n**Task type**: Bug Fix\n\n### Proposed Approach\na\n\n### Deliverables\n| File | Change | Why |\n|------|--------|-----|\n| a | c | w |\n\n### Acceptance Criteria\n- [ ] works\n\n';
  const REVIEWER = '<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: APPROVED\n\n### Findings\nNone\n\n';
  const TRAJECTORY = '<!-- FORGE:TRAJECTORY -->\n## Pipeline Trajectory — #3\n\n| Phase | Result | Notes |\n|-------|--------|-------|\n| Build | done | x |\n\n**Decisions**: d\n**Anomalies**: None\n**Completed**: 2026-01-15T09:30:00Z\n\n';

  it('<!-- {TYPE}:COMPLETE|PARTIAL --> closes CONTRACT, REVIEWER and TRAJECTORY', () => {
    for (const [name, text] of [['CONTRACT', CONTRACT], ['REVIEWER', REVIEWER], ['TRAJECTORY', TRAJECTORY]]) {
      for (const [sentinel, status, completion] of [
        [`<!-- ${name}:COMPLETE -->`, 'complete', 'sentinel'],
        [`<!-- FORGE:${name}:COMPLETE -->`, 'complete', 'sentinel'],
        [`<!-- ${name}:PARTIAL -->`, 'partial', null],
        [`<!-- FORGE:${name}:PARTIAL -->`, 'partial', null],
      ]) {
        const a = parseBody(text + sentinel).annotations[0];
        assert.deepEqual([a.status, a.completion, a.sentinel], [status, completion, sentinel], `${name} ${sentinel}`);
        assert.ok(!a.diagnostics.some((d) => d.code === 'FORGE_SENTINEL_MISMATCH'), `${name} ${sentinel}`);
      }
    }
  });

  it('INVESTIGATOR: the domain sentinel completes, and the generic partial forms mark it partial', () => {
    const inv = '<!-- FORGE:INVESTIGATOR -->\n## Investigation Report\n\n**Verdict**: INVALID\n**Confidence**: LOW\n**Severity**: LOW\n**Task Type**: Feature\n\n### Decomposition Assessment\n**NO** — not a bug.\n\n';
    assert.equal(parseBody(inv + '<!-- INVESTIGATION:COMPLETE -->').annotations[0].status, 'complete');
    for (const s of ['<!-- INVESTIGATOR:PARTIAL -->', '<!-- FORGE:INVESTIGATOR:PARTIAL -->', '<!-- INVESTIGATION:PARTIAL -->']) {
      const a = parseBody(inv + s).annotations[0];
      assert.equal(a.status, 'partial', s);
      assert.ok(!a.diagnostics.some((d) => d.code === 'FORGE_SENTINEL_MISMATCH'), s);
    }
  });

  it('types that state no partial sentinel (DECOMPOSED, BUILDER) accept the generic partial forms', () => {
    const b = '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: `b`\n**Commits**: abcdef1\n**Files changed**: 1\n\n';
    for (const s of ['<!-- BUILDER:PARTIAL -->', '<!-- FORGE:BUILDER:PARTIAL -->']) assert.equal(parseBody(b + s).annotations[0].status, 'partial', s);
  });

  it('another type’s sentinel still never closes an annotation', () => {
    for (const wrong of ['<!-- REVIEWER:COMPLETE -->', '<!-- REVIEWER:PARTIAL -->', '<!-- FORGE:TRAJECTORY:COMPLETE -->', '<!-- INVESTIGATOR:PARTIAL -->']) {
      const a = parseBody(CONTRACT + wrong).annotations[0];
      assert.equal(a.status, 'interrupted', wrong);
      assert.ok(a.diagnostics.some((d) => d.code === 'FORGE_SENTINEL_MISMATCH'), wrong);
    }
    // a stated domain sentinel is not replaced by the generic one
    const b = parseBody('<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n<!-- BUILDER:COMPLETE -->').annotations[0];
    assert.equal(b.status, 'interrupted');
  });
});

describe('conformance audit: only the spec’s required fields are errors (defect 3)', () => {
  it('the 9.1 BUILDER without **Files changed** is complete and passes check, with a warning', () => {
    const body = '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: `fix/null-billing-profile-128`\n**Commits**: a1b2c3d\n\n### Changes\n- `payments/validator.py` — guard null profile\n\n<!-- FORGE:BUILDER:COMPLETE -->';
    const a = parseBody(body).annotations[0];
    assert.equal(a.status, 'complete');
    const missing = a.diagnostics.find((d) => d.code === 'FORGE_FIELD_MISSING');
    assert.equal(missing?.severity, 'warning');
    assert.ok(missing?.hint);
    assert.deepEqual(errors(a.diagnostics), []);
    assert.equal(check(body, ['BUILDER']).ok, true);
  });

  it('a REVIEWER APPROVED without a Findings section, or with an incomplete finding, is complete by structure', () => {
    const bare = parseBody('<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: APPROVED').annotations[0];
    assert.deepEqual([bare.status, bare.completion], ['complete', 'structure']);
    assert.deepEqual(errors(bare.diagnostics), []);
    assert.equal(bare.diagnostics.find((d) => d.code === 'FORGE_FIELD_MISSING')?.severity, 'warning');
    const finding = parseBody('<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: COMMENTED\n\n### Findings\n- **Severity**: LOW\n  **Location**: `a.ts:1`\n  **Issue**: x').annotations[0];
    assert.equal(finding.status, 'complete');
    assert.deepEqual(errors(finding.diagnostics), []);
    assert.ok(finding.diagnostics.some((d) => d.code === 'FORGE_FIELD_MISSING' && d.severity === 'warning' && d.message.includes('Findings[1].Suggested fix')));
  });

  it('missing template fields of DECOMPOSED, CONTRACT, CONTEXT, ARCHITECT and TRAJECTORY are warnings', () => {
    for (const body of [
      '<!-- FORGE:DECOMPOSED -->\n## Decomposition Complete\n\n<!-- FORGE:DECOMPOSED:COMPLETE -->',
      '<!-- FORGE:CONTRACT -->\n## Builder Contract\n\n<!-- CONTRACT:COMPLETE -->',
      '<!-- FORGE:CONTEXT -->\n## Implementation Context\n\n<!-- FORGE:CONTEXT:COMPLETE -->',
      '<!-- FORGE:ARCHITECT -->\n## Implementation Plan\n\n<!-- FORGE:ARCHITECT:COMPLETE -->',
      '<!-- FORGE:TRAJECTORY -->\n## Pipeline Trajectory — #3\n\n**Decisions**: d',
    ]) {
      const a = parseBody(body).annotations[0];
      assert.equal(a.status, 'complete', body);
      assert.ok(a.diagnostics.some((d) => d.code === 'FORGE_FIELD_MISSING'), body);
      assert.deepEqual(errors(a.diagnostics), [], body);
      assert.equal(check(body, [a.type]).ok, true, body);
    }
  });

  it('INVESTIGATOR’s required fields (its spec table) stay errors', () => {
    const a = parseBody('<!-- FORGE:INVESTIGATOR -->\n## Investigation Report\n\n**Verdict**: CONFIRMED\n\n<!-- INVESTIGATION:COMPLETE -->').annotations[0];
    assert.equal(a.status, 'complete');
    assert.deepEqual(a.diagnostics.filter((d) => d.code === 'FORGE_FIELD_MISSING').map((d) => d.severity), ['error', 'error', 'error', 'error']);
  });

  it('completion of a type without a stated sentinel still follows the structure rules', () => {
    // ended by a truncated tag or by another type's sentinel: interrupted
    const cut = parseBody('<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: APPROVED\n<!-- FORGE:REVIEW').annotations[0];
    assert.equal(cut.status, 'interrupted');
    const empty = parseBody('<!-- FORGE:TRAJECTORY -->\n').annotations[0];
    assert.equal(empty.status, 'interrupted');
  });
});

describe('conformance audit: ISO 8601 timestamps (defect 4)', () => {
  it('accepts extended and basic formats, local time, comma fractions and reduced precision', () => {
    for (const v of ['2026-01-15T09:30:00Z', '2026-01-15T09:30:00', '20260115T093000Z', '20260115T093000', '2026-01-15T09:30:00,5Z', '2026-01-15T09:30:00.123+01:00', '2026-01-15T09Z', '2026-01-15T09:30', '20260115T0930+0100', '2026-01-15T09:30:00-05', '2024-02-29T23:59:60Z', '2026-01-15T24:00:00Z']) {
      assert.ok(isIsoTimestamp(v), v);
    }
    for (const v of ['2026-13-15T09:30:00Z', '2026-02-30T09:30:00Z', '2026-01-15T25:00Z', '2026-01-15T09:61Z', 'yesterday', '2026-01-15T09:30:00ZZ', '2026-01-15 09:30', '2026-0115T09:30', '2026-01-15T24:30Z', '2025-02-29T10:00Z', '']) {
      assert.ok(!isIsoTimestamp(v), v);
    }
  });

  it('a TRAJECTORY with such a **Completed** value parses clean; a bare date is a warning', () => {
    const traj = (completed: string) => `<!-- FORGE:TRAJECTORY -->\n## Pipeline Trajectory — #3\n\n| Phase | Result | Notes |\n|-------|--------|-------|\n| Build | done | x |\n\n**Decisions**: d\n**Anomalies**: None\n**Completed**: ${completed}`;
    for (const v of ['2026-01-15T09:30:00', '20260115T093000Z', '2026-01-15T09:30:00,5Z', '2026-01-15T09Z']) {
      const a = parseBody(traj(v)).annotations[0];
      assert.deepEqual(a.diagnostics.filter((d) => d.severity !== 'info'), [], v);
      assert.equal(a.fields?.completed, v);
      assert.equal(renderAnnotation('TRAJECTORY', a.fields), traj(v));
    }
    const date = parseBody(traj('2026-01-15')).annotations[0];
    assert.deepEqual(date.diagnostics.filter((d) => d.severity !== 'info').map((d) => [d.code, d.severity]), [['FORGE_VALUE_NONCANONICAL', 'warning']]);
    assert.equal(parseBody(traj('soon')).annotations[0].diagnostics.find((d) => d.code === 'FORGE_VALUE_INVALID')?.severity, 'error');
  });
});

describe('conformance audit: table columns are read by header name (defect 5)', () => {
  const plan = (header: string, sep: string, row: string) =>
    ['<!-- FORGE:ARCHITECT -->', '## Implementation Plan for #5', '', '### Risk Assessment', header, sep, row, '', '<!-- FORGE:ARCHITECT:COMPLETE -->'].join('\n');

  it('an extra column is ignored and known columns are read by name', () => {
    const a = parseBody(plan('| Risk | Likelihood | Severity | Mitigation |', '|---|---|---|---|', '| stale cache | rare | MEDIUM | purge |')).annotations[0];
    assert.deepEqual(errors(a.diagnostics), []);
    assert.deepEqual(a.fields?.risks, [{ risk: 'stale cache', severity: 'MEDIUM', mitigation: 'purge' }]);
  });

  it('reordered columns are read by name', () => {
    const a = parseBody(plan('| Mitigation | Risk | Severity |', '|---|---|---|', '| purge | stale cache | LOW |')).annotations[0];
    assert.deepEqual(a.fields?.risks, [{ risk: 'stale cache', severity: 'LOW', mitigation: 'purge' }]);
    assert.deepEqual(a.diagnostics.filter((d) => d.severity !== 'info' && d.code !== 'FORGE_FIELD_MISSING'), []);
  });

  it('an unrecognised header of the expected width is still read by position, with a warning', () => {
    const a = parseBody(plan('| Risiko | Schwere | Abhilfe |', '|---|---|---|', '| stale cache | LOW | purge |')).annotations[0];
    assert.deepEqual(a.fields?.risks, [{ risk: 'stale cache', severity: 'LOW', mitigation: 'purge' }]);
    assert.ok(a.diagnostics.some((d) => d.code === 'FORGE_TABLE_HEADER' && d.severity === 'warning'));
  });
});

describe('conformance audit: Markdown hard line breaks survive (defect 6)', () => {
  it('two trailing spaces inside free text round-trip through render and parse', () => {
    const data = { number: 4, knownPitfalls: 'first line  \nsecond line' };
    const text = renderAnnotation('CONTEXT', data);
    assert.ok(text.includes('first line  \nsecond line'), text);
    const a = parseBody(text).annotations[0];
    assert.equal(a.fields?.knownPitfalls, 'first line  \nsecond line');
    assert.equal(renderAnnotation('CONTEXT', a.fields), text);
  });
});

describe('conformance audit: table columns by name keep the old tolerance (defect 5)', () => {
  const plan = (header: string, row: string) => ['<!-- FORGE:ARCHITECT -->', '## Implementation Plan for #5', '', '### Risk Assessment', header, '|---|---|---|', row, '', '<!-- FORGE:ARCHITECT:COMPLETE -->'].join('\n');

  it('a renamed column in the template’s place is read there, with a warning; a missing column is absent', () => {
    const a = parseBody(plan('| Risk | Sev | Mitigation |', '| stale cache | LOW | purge |')).annotations[0];
    assert.deepEqual(a.fields?.risks, [{ risk: 'stale cache', severity: 'LOW', mitigation: 'purge' }]);
    assert.ok(a.diagnostics.some((d) => d.code === 'FORGE_TABLE_HEADER' && d.message.includes('"Sev" is read as "Severity"')));
    const b = parseBody(plan('| Risk | Mitigation |', '| stale cache | purge |')).annotations[0];
    assert.deepEqual(b.fields?.risks, [{ risk: 'stale cache', mitigation: 'purge' }]);
    assert.ok(b.diagnostics.some((d) => d.code === 'FORGE_TABLE_HEADER' && d.message.includes('no "Severity" column')));
  });
});

describe('conformance audit: check report wording after defects 1-3', () => {
  it('names the missing generic sentinel of an unknown type and the structure of a type without one', () => {
    const unknown = check('<!-- FORGE:ACME_SCAN -->\nx', ['ACME_SCAN']);
    assert.equal(unknown.ok, false);
    assert.ok(formatConformanceReport(unknown).includes('acme_scan INCOMPLETE (interrupted: no <!-- FORGE:ACME_SCAN:COMPLETE -->)'));
    const review = check('<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n<!-- FORGE:BUILDER:COMPLETE -->', ['REVIEWER']);
    assert.ok(formatConformanceReport(review).includes('reviewer INCOMPLETE (interrupted: no sentinel, and not complete by structure (see FORGE_INTERRUPTED))'));
  });
});
