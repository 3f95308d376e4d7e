import assert from 'node:assert/strict';
import { parseBody } from './parse-body.js';

const codes = (list: { code: string }[]) => list.map((d) => d.code);

const BUILDER = [
  '<!-- FORGE:BUILDER -->',
  '## Implementation Complete',
  '',
  '**Branch**: `fix/x`',
  '**Commits**: a1b2c3d',
  '**Files changed**: 1',
  '',
  '### Changes',
  '- `a.ts` — fix',
].join('\n');

describe('parseBody', () => {
  it('finds several annotations in one comment and ends each at the next FORGE tag', () => {
    const body = `Intro text.\n\n${BUILDER}\n\n<!-- FORGE:BUILDER:COMPLETE -->\n<!-- FORGE:KNOWLEDGE_GIST: https://x.example/a -->\n<!-- FORGE:REVIEW_STARTED -->\nprose after a marker`;
    const { annotations, diagnostics } = parseBody(body);
    assert.deepEqual(annotations.map((a) => [a.type, a.form, a.status, a.line]), [
      ['BUILDER', 'block', 'complete', 3],
      ['KNOWLEDGE_GIST', 'inline', 'complete', 14],
      ['REVIEW_STARTED', 'marker', 'complete', 15],
    ]);
    assert.equal(annotations[1].value, 'https://x.example/a');
    assert.deepEqual(diagnostics, []);
  });

  it('reports complete only with the type’s own sentinel', () => {
    assert.equal(parseBody(`${BUILDER}\n\n<!-- FORGE:BUILDER:COMPLETE -->`).annotations[0].status, 'complete');
    assert.equal(parseBody(`${BUILDER}\n\n<!-- FORGE:BUILDER:PARTIAL -->`).annotations[0].status, 'partial');
    const none = parseBody(BUILDER).annotations[0];
    assert.equal(none.status, 'interrupted');
    assert.ok(codes(none.diagnostics).includes('FORGE_INTERRUPTED'));
  });

  it('uses the domain sentinel of INVESTIGATOR and flags the generic form as a mismatch', () => {
    const inv = '<!-- FORGE:INVESTIGATOR -->\n## Investigation Report\n\n**Verdict**: INVALID\n**Confidence**: LOW\n**Severity**: LOW\n**Task Type**: Feature\n\n### Decomposition Assessment\n**NO** — not a bug.\n';
    assert.equal(parseBody(inv + '\n<!-- INVESTIGATION:COMPLETE -->').annotations[0].status, 'complete');
    assert.equal(parseBody(inv + '\n<!-- INVESTIGATION:PARTIAL -->').annotations[0].status, 'partial');
    for (const wrong of ['<!-- INVESTIGATOR:COMPLETE -->', '<!-- FORGE:INVESTIGATOR:COMPLETE -->']) {
      const a = parseBody(inv + '\n' + wrong).annotations[0];
      assert.equal(a.status, 'interrupted', wrong);
      const mismatch = a.diagnostics.find((d) => d.code === 'FORGE_SENTINEL_MISMATCH');
      assert.ok(mismatch, wrong);
      assert.match(mismatch.message, /<!-- INVESTIGATION:COMPLETE -->/);
    }
  });

  it('does not let the FORGE:-prefixed sentinel of one annotation start a new one', () => {
    const { annotations } = parseBody('<!-- FORGE:CONTEXT -->\n## Implementation Context for #4\n\n<!-- FORGE:CONTEXT:COMPLETE -->\n<!-- FORGE:DECOMPOSED -->\n## Decomposition Complete\n\n### Sub-Issues Created\n- #5: a\n\n### Decomposition Rationale\nsplit\n\n<!-- FORGE:DECOMPOSED:COMPLETE -->');
    assert.deepEqual(annotations.map((a) => [a.type, a.status]), [['CONTEXT', 'complete'], ['DECOMPOSED', 'complete']]);
  });

  it('a sentinel of another type ends the annotation as interrupted', () => {
    const { annotations } = parseBody(`${BUILDER}\n<!-- FORGE:ARCHITECT:COMPLETE -->\ntrailing`);
    assert.equal(annotations.length, 1);
    assert.equal(annotations[0].status, 'interrupted');
    assert.ok(codes(annotations[0].diagnostics).includes('FORGE_SENTINEL_MISMATCH'));
  });

  it('a truncated tag ends the annotation before it (an interrupted producer)', () => {
    const { annotations, diagnostics } = parseBody(`${BUILDER}\n\n<!-- FORGE:BUILDER:COMPL`);
    assert.equal(annotations[0].status, 'interrupted');
    assert.ok(codes(annotations[0].diagnostics).includes('FORGE_TAG_MALFORMED'));
    assert.deepEqual(diagnostics, []);
  });

  it('warns when text follows a sentinel, and keeps it out of the annotation', () => {
    const a = parseBody(`${BUILDER}\n\n<!-- FORGE:BUILDER:COMPLETE -->\n\nThanks!`).annotations[0];
    assert.equal(a.status, 'complete');
    assert.ok(!a.body.includes('Thanks'));
    assert.ok(codes(a.diagnostics).includes('FORGE_SENTINEL_NOT_LAST'));
  });

  it('returns unknown types as unknown, with their generic sentinel, and never fails', () => {
    const { annotations } = parseBody('<!-- FORGE:ACME_SCAN -->\nanything\n<!-- FORGE:ACME_SCAN:COMPLETE -->\n<!-- FORGE:ACME_LINK: https://a.example -->');
    assert.deepEqual(annotations.map((a) => [a.type, a.kind, a.status]), [['ACME_SCAN', 'unknown', 'complete'], ['ACME_LINK', 'unknown', 'complete']]);
    assert.equal(annotations[0].fields, undefined);
    assert.ok(annotations.every((a) => a.diagnostics.every((d) => d.severity !== 'error')));
  });

  it('reads CRLF bodies as GitHub and Gitea return them', () => {
    const a = parseBody(`${BUILDER}\n\n<!-- FORGE:BUILDER:COMPLETE -->`.replace(/\n/g, '\r\n')).annotations[0];
    assert.equal(a.status, 'complete');
    assert.equal(a.fields?.branch, 'fix/x');
    assert.ok(!a.body.includes('\r'));
  });

  it('ignores tags that are not on their own line, with an info finding', () => {
    const { annotations, diagnostics } = parseBody('We post `<!-- FORGE:BUILDER -->` when done.\nSee also text <!-- FORGE:GATE_FAILED --> inline.');
    assert.deepEqual(annotations, []);
    assert.deepEqual(diagnostics.map((d) => [d.code, d.severity, d.line]), [['FORGE_TAG_NOT_OWN_LINE', 'info', 2]]);
  });

  it('accepts loose spacing but says the tag is not canonical', () => {
    const a = parseBody('<!--FORGE:GATE_FAILED-->').annotations[0];
    assert.equal(a.type, 'GATE_FAILED');
    assert.deepEqual(codes(a.diagnostics), ['FORGE_TAG_NONCANONICAL']);
  });

  it('flags form mismatches: inline value for a block type, block form for an inline type, empty values', () => {
    assert.deepEqual(parseBody('<!-- FORGE:BUILDER: https://x -->').annotations.map((a) => [a.status, codes(a.diagnostics)]), [['interrupted', ['FORGE_FORM_MISMATCH']]]);
    const gist = parseBody('<!-- FORGE:KNOWLEDGE_GIST -->\nhttps://x').annotations[0];
    assert.equal(gist.status, 'interrupted');
    assert.ok(codes(gist.diagnostics).includes('FORGE_FORM_MISMATCH'));
    assert.deepEqual(codes(parseBody('<!-- FORGE:PRIOR_GIST: -->').annotations[0].diagnostics), ['FORGE_INLINE_EMPTY']);
  });

  it('reports orphan sentinels at thread level', () => {
    const { annotations, diagnostics } = parseBody('text\n<!-- INVESTIGATION:COMPLETE -->');
    assert.deepEqual(annotations, []);
    assert.deepEqual(diagnostics.map((d) => [d.code, d.severity]), [['FORGE_SENTINEL_ORPHAN', 'warning']]);
  });

  it('a partial annotation keeps the parts that were finished', () => {
    const a = parseBody(`${BUILDER}\n\n<!-- FORGE:BUILDER:PARTIAL -->`).annotations[0];
    assert.equal(a.status, 'partial');
    assert.deepEqual(a.fields, { branch: 'fix/x', commits: ['a1b2c3d'], filesChanged: 1, changes: [{ file: 'a.ts', change: 'fix' }] });
    assert.ok(codes(a.diagnostics).includes('FORGE_PARTIAL'));
  });

  it('CONTEXT and ARCHITECT: the PARTIAL sentinel is a time-limited completion sentinel (4.1, o02)', () => {
    const a = parseBody('<!-- FORGE:CONTEXT -->\n## Implementation Context for #9\n\n### Known Pitfalls for This Area\nclose cursors\n\n<!-- FORGE:CONTEXT:PARTIAL -->').annotations[0];
    assert.deepEqual([a.status, a.completion, a.sentinel], ['complete', 'time-limited', '<!-- FORGE:CONTEXT:PARTIAL -->']);
    assert.deepEqual(a.fields, { number: 9, knownPitfalls: 'close cursors' });
    // sections the time budget left out are no warnings; nothing asks to delete and re-run it
    assert.deepEqual(a.diagnostics.filter((d) => d.severity !== 'info'), []);
    assert.deepEqual(codes(a.diagnostics).filter((c) => c !== 'FORGE_FIELD_MISSING'), ['FORGE_TIME_LIMITED']);
    const plan = parseBody('<!-- FORGE:ARCHITECT -->\n## Implementation Plan for #9\n\n<!-- FORGE:ARCHITECT:PARTIAL -->').annotations[0];
    assert.deepEqual([plan.status, plan.completion], ['complete', 'time-limited']);
    // the bare form is not a sentinel of CONTEXT: it stays interrupted
    assert.equal(parseBody('<!-- FORGE:CONTEXT -->\n## Implementation Context for #9\n\n<!-- CONTEXT:PARTIAL -->').annotations[0].status, 'interrupted');
  });

  // audit defect 3: this asserted that missing template parts make such an annotation interrupted;
  // the spec states no required fields for these types, so they are warnings and never decide completion
  it('types without a stated sentinel are complete by structure; missing template parts are warnings', () => {
    const traj = '<!-- FORGE:TRAJECTORY -->\n## Pipeline Trajectory — #3\n\n| Phase | Result | Notes |\n|---|---|---|\n| Build | done | x |\n\n**Decisions**: d\n**Anomalies**: None\n**Completed**: 2026-01-15T09:30:00Z';
    const full = parseBody(traj).annotations[0];
    assert.deepEqual([full.status, full.completion], ['complete', 'structure']);
    const cut = parseBody(traj.split('\n**Anomalies**')[0]).annotations[0];
    assert.deepEqual([cut.status, cut.completion], ['complete', 'structure']);
    assert.deepEqual(cut.diagnostics.filter((d) => d.code === 'FORGE_FIELD_MISSING').map((d) => [d.message, d.severity]), [['**Anomalies** is missing', 'warning'], ['**Completed** is missing', 'warning']]);
    const review = parseBody('<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: APPROVED\n\n### Findings\n- **Severity**: LOW\n  **Location**: `a.ts:1`\n  **Issue**: x').annotations[0];
    assert.equal(review.status, 'complete');
    assert.ok(review.diagnostics.some((d) => d.message.includes('Findings[1].Suggested fix') && d.severity === 'warning'));
    assert.equal(parseBody('<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: APPROVED\n\n### Findings\nNone').annotations[0].status, 'complete');
    // cut off by a truncated tag: interrupted
    const truncated = parseBody(`${traj}\n<!-- FORGE:TRAJ`).annotations[0];
    assert.deepEqual([truncated.status, truncated.completion], ['interrupted', null]);
    assert.match(truncated.diagnostics.find((d) => d.code === 'FORGE_INTERRUPTED')!.message, /cut off by a malformed tag/);
  });

  it('an explicit generic sentinel also completes a type without a stated one', () => {
    const a = parseBody('<!-- FORGE:CONTRACT -->\n## Builder Contract\n\n<!-- FORGE:CONTRACT:COMPLETE -->').annotations[0];
    assert.deepEqual([a.status, a.completion], ['complete', 'sentinel']);
    // audit defect 3: was severity error; CONTRACT's template fields are not required by the spec
    assert.ok(a.diagnostics.some((d) => d.code === 'FORGE_FIELD_MISSING' && d.severity === 'warning'));
    assert.ok(!a.diagnostics.some((d) => d.severity === 'error'));
  });

  it('validates enums in tables, checklists and rows with a diagnostic per violation', () => {
    const body = [
      '<!-- FORGE:ARCHITECT -->',
      '## Implementation Plan for #5',
      '',
      '### Affected Paths (ALL must be updated)',
      '| # | File | Function/Class | Change Required | Why |',
      '|---|------|----------------|-----------------|-----|',
      '| 1 | a.ts | f | x | y |',
      '',
      '### Risk Assessment',
      '| Risk | Severity | Mitigation |',
      '|------|----------|------------|',
      '| r1 | CRITICAL | m |',
      '| r2 | high | m |',
      '',
      '<!-- FORGE:ARCHITECT:COMPLETE -->',
    ].join('\n');
    const a = parseBody(body).annotations[0];
    assert.deepEqual(a.diagnostics.filter((d) => d.code === 'FORGE_ENUM_INVALID').map((d) => d.line), [12, 13]);
    assert.deepEqual((a.fields?.affectedPaths as unknown[])[0], { file: 'a.ts', symbol: 'f', change: 'x', why: 'y' });
  });

  it('extracts checklists with their checked state and acceptance results', () => {
    const body = `${BUILDER}\n\n### Acceptance Criteria Status\n- [x] fast — PASS\n- [ ] small — FAIL (240 MB)\n- [x] odd — FAIL\n\n### Testing Checklist\n- [X] empty input\n- [ ] disconnect\n\n<!-- FORGE:BUILDER:COMPLETE -->`;
    const a = parseBody(body).annotations[0];
    assert.deepEqual(a.fields?.acceptanceStatus, [
      { checked: true, criterion: 'fast', result: 'PASS' },
      { checked: false, criterion: 'small', result: 'FAIL', reason: '240 MB' },
      { checked: true, criterion: 'odd', result: 'FAIL' },
    ]);
    assert.deepEqual(a.fields?.testingChecklist, [{ checked: true, text: 'empty input' }, { checked: false, text: 'disconnect' }]);
    assert.deepEqual(codes(a.diagnostics.filter((d) => d.severity !== 'info')), ['FORGE_STATUS_INCONSISTENT']);
  });

  it('keeps unknown sections in extraSections', () => {
    const a = parseBody(`${BUILDER}\n\n### Notes for reviewers\nlook at a.ts first\n\n<!-- FORGE:BUILDER:COMPLETE -->`).annotations[0];
    assert.deepEqual(a.fields?.extraSections, [{ heading: 'Notes for reviewers', content: 'look at a.ts first' }]);
  });
});

describe('parseBody: non-protocol comments', () => {
  it('keeps other `<!-- X:COMPLETE -->` comments as text and does not flag them', () => {
    const a = parseBody('<!-- FORGE:CONTEXT -->\n## Implementation Context for #2\n\n### Past Bugs in This Module\n<!-- TODO:COMPLETE -->\n#1\n\n<!-- FORGE:CONTEXT:COMPLETE -->').annotations[0];
    assert.equal(a.status, 'complete');
    assert.equal(a.fields?.pastBugs, '<!-- TODO:COMPLETE -->\n#1');
    assert.deepEqual(a.diagnostics, []);
    assert.deepEqual(parseBody('<!-- TASK:COMPLETE -->').diagnostics, []);
  });
});

describe('parseBody: audit findings', () => {
  const REVIEWER = '<!-- FORGE:REVIEWER -->\n## Review — SECURITY\n\n**Verdict**: APPROVED\n\n### Findings\nNone';
  const CONTRACT = '<!-- FORGE:CONTRACT -->\n## Builder Contract\n\n**Task type**: Bug Fix\n\n### Proposed Approach\na\n\n### Deliverables\n| File | Change | Why |\n|------|--------|-----|\n| a | c | w |\n\n### Acceptance Criteria\n- [ ] works';
  const TRAJECTORY = '<!-- FORGE:TRAJECTORY -->\n## Pipeline Trajectory — #3\n\n| Phase | Result | Notes |\n|-------|--------|-------|\n| Build | done | x |\n\n**Decisions**: d\n**Anomalies**: None\n**Completed**: 2026-01-15T09:30:00Z';

  it('a wrong sentinel never completes a type without a stated sentinel, not even by structure (defect 11)', () => {
    for (const [name, text] of [['REVIEWER', REVIEWER], ['CONTRACT', CONTRACT], ['TRAJECTORY', TRAJECTORY]]) {
      assert.deepEqual(parseBody(text).annotations.map((a) => [a.status, a.completion]), [['complete', 'structure']], `${name} alone`);
      for (const wrong of ['<!-- FORGE:BUILDER:COMPLETE -->', '<!-- INVESTIGATION:COMPLETE -->']) {
        const a = parseBody(`${text}\n\n${wrong}`).annotations[0];
        assert.deepEqual([a.status, a.completion], ['interrupted', null], `${name} + ${wrong}`);
        assert.deepEqual(a.diagnostics.filter((d) => d.severity !== 'info').map((d) => d.code), ['FORGE_INTERRUPTED', 'FORGE_SENTINEL_MISMATCH'], `${name} + ${wrong}`);
        assert.match(a.diagnostics[0].message, /ended by a sentinel that is not its own/);
      }
      // its own generic sentinel after the stray one still completes it
      const own = parseBody(`${text}\n<!-- INVESTIGATION:COMPLETE -->\n<!-- FORGE:${name}:COMPLETE -->`).annotations[0];
      assert.deepEqual([own.status, own.completion], ['complete', 'sentinel'], name);
    }
  });

  // audit defect 3: was an error; the spec does not require the number, so it is now a warning (still reported)
  it('a title number that cannot be read is reported as missing in a complete annotation (defect 10)', () => {
    for (const [type, title] of [['CONTEXT', 'Implementation Context for the billing bug'], ['ARCHITECT', 'Implementation Plan for the billing bug']]) {
      const a = parseBody(`<!-- FORGE:${type} -->\n## ${title}\n\n<!-- FORGE:${type}:COMPLETE -->`).annotations[0];
      assert.equal(a.status, 'complete');
      const missing = a.diagnostics.find((d) => d.code === 'FORGE_FIELD_MISSING' && d.message.includes('the number in the title'));
      assert.deepEqual([missing?.severity, missing?.line], ['warning', 2], type);
      assert.ok(a.diagnostics.some((d) => d.code === 'FORGE_TITLE_MISMATCH'), type);
    }
    const partial = parseBody('<!-- FORGE:CONTEXT -->\n## Context for the bug\n\n<!-- FORGE:CONTEXT:PARTIAL -->').annotations[0];
    assert.equal(partial.diagnostics.find((d) => d.code === 'FORGE_FIELD_MISSING')?.severity, 'info');
  });

  it('flags a line inside an annotation that opens an HTML comment it does not close (defect 2, D1)', () => {
    const body = '<!-- FORGE:CONTEXT -->\n## Implementation Context for #2\n\n### Known Pitfalls for This Area\nnothing to see\n<!-- hidden from readers\n### Past Bugs in This Module\n#1 -->\n\n<!-- FORGE:CONTEXT:COMPLETE -->';
    const a = parseBody(body).annotations[0];
    assert.deepEqual(a.diagnostics.map((d) => [d.code, d.severity, d.line]), [['FORGE_COMMENT_UNCLOSED', 'error', 6]]);
    // in an unknown type, which is skipped and never failed (7.2.4), a warning
    const unknown = parseBody('<!-- FORGE:ACME_SCAN -->\n<!--\nhidden\n<!-- ACME_SCAN:COMPLETE -->').annotations[0];
    assert.deepEqual(unknown.diagnostics.filter((d) => d.code === 'FORGE_COMMENT_UNCLOSED').map((d) => d.severity), ['warning']);
    // closed on its line, quoted in backticks, or shown as code: no warning
    const fine = parseBody('<!-- FORGE:CONTEXT -->\n## Implementation Context for #2\n\n### Known Pitfalls for This Area\n<!-- a note -->\nwrite `<!--` to start a comment\n\n    <!-- code\n\n<!-- FORGE:CONTEXT:COMPLETE -->').annotations[0];
    assert.deepEqual(fine.diagnostics, []);
  });

  it('never throws on very large input: one finding per stray line, or 200,000 markers (defect 4)', () => {
    const stray = parseBody('<!-- FORGE:CONTEXT -->\n## Implementation Context for #1\n' + 'stray\n'.repeat(200_000));
    assert.equal(stray.annotations.length, 1);
    assert.ok(stray.annotations[0].diagnostics.length > 200_000);
    assert.equal(parseBody('<!-- FORGE:GATE_FAILED -->\n'.repeat(200_000)).annotations.length, 200_000);
  });
});
