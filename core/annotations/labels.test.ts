import assert from 'node:assert/strict';
import { canTransition, evaluateLabels, impliedStage, TERMINAL_LABELS, WORKFLOW_LABELS } from './labels.js';
import { parseBody } from './parse-body.js';
import { parseThread } from './thread.js';

const INV = (verdict: string) =>
  `<!-- FORGE:INVESTIGATOR -->\n## Investigation Report\n\n**Verdict**: ${verdict}\n**Confidence**: HIGH\n**Severity**: LOW\n**Task Type**: Bug Fix\n\n### Decomposition Assessment\n**NO** — small\n\n<!-- INVESTIGATION:COMPLETE -->`;
const BUILDER = '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: `b`\n**Commits**: abcdef1\n**Files changed**: 1\n\n<!-- FORGE:BUILDER:COMPLETE -->';
const thread = (...bodies: string[]) => parseThread(bodies.map((body, index) => ({ index, body }))).annotations;

describe('label state machine', () => {
  it('reserves the spec’s labels and terminal set', () => {
    assert.equal(WORKFLOW_LABELS.length, 7);
    assert.deepEqual([...TERMINAL_LABELS], ['workflow:merged', 'workflow:invalid', 'workflow:decomposed', 'needs-human']);
  });

  it('allows forward moves and the changes-requested loop, nothing out of a terminal stage', () => {
    assert.ok(canTransition(null, 'workflow:investigating'));
    assert.ok(canTransition('workflow:investigating', 'workflow:invalid'));
    assert.ok(canTransition('workflow:in-review', 'workflow:building'));
    assert.ok(!canTransition('workflow:investigating', 'workflow:merged'));
    assert.ok(!canTransition('workflow:merged', 'workflow:building'));
  });

  it('reports the stage and stops on a terminal label', () => {
    const s = evaluateLabels(['bug', 'workflow:merged'], thread(INV('CONFIRMED'), BUILDER));
    assert.equal(s.stage, 'workflow:merged');
    assert.deepEqual([s.stop, s.terminal], [true, ['workflow:merged']]);
    const running = evaluateLabels(['workflow:building'], thread(INV('CONFIRMED')));
    assert.deepEqual([running.stage, running.stop], ['workflow:building', false]);
    assert.deepEqual(running.diagnostics, []);
  });

  it('stops on an error marker with no later lifecycle annotation, and asks for needs-human', () => {
    const s = evaluateLabels(['workflow:building'], thread(INV('CONFIRMED'), '<!-- FORGE:GATE_FAILED -->'));
    assert.equal(s.stop, true);
    assert.match(s.reasons[0], /FORGE:GATE_FAILED/);
    assert.deepEqual(s.diagnostics.map((d) => d.code), ['FORGE_MARKER_UNHANDLED']);
    const handled = evaluateLabels(['workflow:in-review'], thread(INV('CONFIRMED'), '<!-- FORGE:PUSH_FAILED -->', BUILDER));
    assert.equal(handled.stop, false);
    assert.equal(evaluateLabels(null, thread('<!-- FORGE:ANCESTRY_FAILED -->')).stop, true);
  });

  it('infers the lower-bound stage from annotations and flags labels that lag behind', () => {
    assert.equal(impliedStage(thread(INV('INVALID'))), 'workflow:invalid');
    assert.equal(impliedStage(thread(INV('CONFIRMED'))), 'workflow:ready-to-build');
    assert.equal(impliedStage(thread(INV('CONFIRMED'), BUILDER, '<!-- FORGE:REVIEW_STARTED -->')), 'workflow:in-review');
    const s = evaluateLabels(['workflow:investigating'], thread(INV('CONFIRMED'), BUILDER));
    assert.deepEqual(s.diagnostics.map((d) => d.code), ['FORGE_LABEL_BEHIND']);
    const wrongEnd = evaluateLabels(['workflow:merged'], thread(INV('INVALID')));
    assert.deepEqual(wrongEnd.diagnostics.map((d) => d.code), ['FORGE_LABEL_BEHIND']);
  });

  it('follows the changes-requested loop: building after a review that requested changes is not behind (D6)', () => {
    const review = (verdict: string, agent = 'LOGIC') =>
      `<!-- FORGE:REVIEWER -->\n## Review — ${agent}\n\n**Verdict**: ${verdict}\n\n### Findings\n- **Severity**: HIGH\n  **Location**: \`a.ts:1\`\n  **Issue**: wrong\n  **Suggested fix**: fix\n  **Prevention**: test`;
    const changes = thread(INV('CONFIRMED'), BUILDER, review('CHANGES_REQUESTED'));
    assert.ok(canTransition('workflow:in-review', 'workflow:building'));
    assert.equal(impliedStage(changes), 'workflow:building');
    assert.deepEqual(evaluateLabels(['workflow:building'], changes).diagnostics, []);
    assert.deepEqual(evaluateLabels(['workflow:in-review'], changes).diagnostics, []);
    // one domain of the round requested changes, another approved after it: still sent back
    assert.equal(impliedStage(thread(INV('CONFIRMED'), BUILDER, review('CHANGES_REQUESTED'), review('APPROVED', 'STYLE'))), 'workflow:building');
    // the fix is built and reviewed again: in review
    const again = thread(INV('CONFIRMED'), BUILDER, review('CHANGES_REQUESTED'), BUILDER, '<!-- FORGE:REVIEW_STARTED -->');
    assert.equal(impliedStage(again), 'workflow:in-review');
    assert.deepEqual(evaluateLabels(['workflow:building'], again).diagnostics, []);
    // labels that lag further behind are told the stage of the loop
    const behind = evaluateLabels(['workflow:ready-to-build'], thread(INV('CONFIRMED'), BUILDER, review('CHANGES_REQUESTED'), BUILDER));
    assert.deepEqual(behind.diagnostics.map((d) => [d.code, d.hint]), [['FORGE_LABEL_BEHIND', 'set workflow:building']]);
    // after an approving review, building is still a move the table allows (a human may have asked
    // for changes outside the annotations); a label further back is behind
    const approved = thread(INV('CONFIRMED'), BUILDER, review('APPROVED'));
    assert.equal(impliedStage(approved), 'workflow:in-review');
    assert.deepEqual(evaluateLabels(['workflow:building'], approved).diagnostics, []);
    assert.deepEqual(evaluateLabels(['workflow:ready-to-build'], approved).diagnostics.map((d) => [d.code, d.hint]), [['FORGE_LABEL_BEHIND', 'set workflow:in-review']]);
  });

  it('flags several workflow labels and unknown ones in the reserved namespace', () => {
    const s = evaluateLabels(['workflow:building', 'workflow:in-review', 'workflow:shipping'], []);
    assert.equal(s.stage, 'workflow:in-review');
    assert.deepEqual(s.diagnostics.map((d) => d.code).sort(), ['FORGE_LABEL_CONFLICT', 'FORGE_LABEL_UNKNOWN']);
  });

  it('treats a partial investigation as still investigating', () => {
    const partial = parseBody(INV('CONFIRMED').replace('INVESTIGATION:COMPLETE', 'INVESTIGATION:PARTIAL')).annotations;
    assert.equal(impliedStage(partial), 'workflow:investigating');
  });
});
