import assert from 'node:assert/strict';
import { isSfError } from '../errors/index.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';
import { atxHeading } from './template/guard.js';

/** Sections and titles are CommonMark ATX headings, read as GitHub renders them. */

const investigator = (rootCause: string, decomposition: string) =>
  [
    '<!-- FORGE:INVESTIGATOR -->',
    '## Investigation Report',
    '',
    '**Verdict**: CONFIRMED',
    '**Confidence**: HIGH',
    '**Severity**: HIGH',
    '**Task Type**: Bug Fix',
    '',
    rootCause,
    'null profile',
    '',
    decomposition,
    '**NO** — single-file fix',
    '',
    '<!-- INVESTIGATION:COMPLETE -->',
  ].join('\n');

const errors = (a: { diagnostics: { severity: string; code: string }[] }) => a.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);

describe('ATX headings (CommonMark)', () => {
  it('reads a heading with a closing # sequence and one indented by 1-3 spaces as sections', () => {
    const [a] = parseBody(investigator('### Root Cause ###', '  ### Decomposition Assessment')).annotations;
    assert.equal(a.status, 'complete');
    assert.deepEqual(errors(a), []);
    assert.equal(a.fields?.rootCause, 'null profile');
    assert.deepEqual(a.fields?.decomposition, { assessment: 'NO', reason: 'single-file fix' });
    assert.equal(a.fields?.extraSections, undefined);
    const [b] = parseBody(investigator('   ### Root Cause #####   ', '### Decomposition Assessment #')).annotations;
    assert.deepEqual([b.fields?.rootCause, errors(b)], ['null profile', []]);
  });

  it('does not read "###Text" (a paragraph on GitHub) or a 4-space indented line (code) as a section', () => {
    const [a] = parseBody(investigator('### Root Cause', '###Decomposition Assessment')).annotations;
    assert.equal(a.fields?.decomposition, undefined);
    assert.deepEqual(errors(a), ['FORGE_FIELD_MISSING']);
    const [b] = parseBody(investigator('### Root Cause', '    ### Decomposition Assessment')).annotations;
    assert.deepEqual(errors(b), ['FORGE_FIELD_MISSING']);
  });

  it('reads the ## title the same way', () => {
    const body = (title: string) => `<!-- FORGE:BUILDER -->\n${title}\n\n**Branch**: \`b\`\n**Commits**: a1b2c3d\n**Files changed**: 1\n\n<!-- FORGE:BUILDER:COMPLETE -->`;
    assert.deepEqual(parseBody(body(' ## Implementation Complete ##')).annotations[0].diagnostics, []);
    const glued = parseBody(body('##Implementation Complete')).annotations[0];
    assert.ok(glued.diagnostics.some((d) => d.code === 'FORGE_TITLE_MISSING'));
  });

  it('atxHeading: closing sequences, escapes and empty headings', () => {
    const cases: [string, string | null][] = [
      ['### Root Cause', 'Root Cause'],
      ['### Root Cause ###', 'Root Cause'],
      ['###   Root Cause  \t', 'Root Cause'],
      ['### Root Cause#', 'Root Cause#'],
      ['### Root \\###', 'Root \\###'],
      ['### ###', ''],
      ['###', ''],
      ['###\tRoot', 'Root'],
      ['   ### x', 'x'],
      ['    ### x', null],
      ['###x', null],
      ['#### x', null],
      ['## x', null],
      ['\t### x', null],
    ];
    for (const [line, heading] of cases) assert.equal(atxHeading(line, 3), heading, JSON.stringify(line));
  });

  it('render refuses free text with a line the parser would read as a section, indented or closed', () => {
    const data = (approach: string) => ({ branch: 'b', commits: ['a1b2c3d'], filesChanged: 1, approach });
    for (const line of ['  ### Notes', '### Notes ###', '###']) {
      assert.throws(() => renderAnnotation('BUILDER', data(`see\n${line}\nmore`)), (e: unknown) => isSfError(e, 'SF_E_ANNOTATION') && /would start a new ### section/.test(e.message), line);
    }
    // not a heading on GitHub, so not a section: it round-trips as text
    const body = renderAnnotation('BUILDER', data('see\n###Notes\nmore'));
    assert.equal(parseBody(body).annotations[0].fields?.approach, 'see\n###Notes\nmore');
  });
});
