import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { fixturesDir } from '../../test-support/index.js';
import { checkChain } from './chain.js';
import { formatConformanceReport, runConformanceCheck } from './check.js';
import { evaluateLabels } from './labels.js';
import { normalizeComments, normalizeLabels, parseThread, readThreadInput } from './thread.js';

const fixture = (p: string) => readFileSync(join(fixturesDir, 'annotations', p), 'utf8');

describe('comment threads', () => {
  it('reads GitHub issue comments in order with author and id', () => {
    const input = readThreadInput(fixture('threads/worked-example.github.json'));
    assert.equal(input.platform, 'github');
    assert.deepEqual(input.comments.map((c) => [c.index, c.id, c.author]), [
      [0, 2001, 'forge-investigator[bot]'],
      [1, 2002, 'forge-builder[bot]'],
      [2, 2003, 'forge-orchestrator[bot]'],
    ]);
    const { annotations } = parseThread(input.comments);
    assert.deepEqual(annotations.map((a) => [a.type, a.status, a.comment?.index]), [
      ['INVESTIGATOR', 'complete', 0],
      ['BUILDER', 'complete', 1],
      ['TRAJECTORY', 'complete', 2],
    ]);
  });

  it('reads Gitea comments with CRLF bodies and several annotations per comment', () => {
    const input = readThreadInput(fixture('threads/lifecycle.gitea.json'));
    assert.equal(input.platform, 'gitea');
    const { annotations } = parseThread(input.comments);
    assert.deepEqual(
      annotations.map((a) => `${a.type}:${a.status}`),
      ['INVESTIGATOR:complete', 'KNOWLEDGE_GIST:complete', 'CONTRACT:complete', 'CONTEXT:complete', 'CONTEXT:complete', 'ARCHITECT:complete', 'ACME_SECURITY_SCAN:complete', 'BUILDER:complete', 'REVIEW_STARTED:complete', 'TRAJECTORY:complete', 'SKIT_EVIDENCE:complete'],
    );
    assert.equal(annotations.find((a) => a.type === 'ACME_SECURITY_SCAN')?.kind, 'unknown');
  });

  it('puts GitLab notes (newest first by default) back in chronological order', () => {
    const raw = JSON.parse(fixture('threads/interrupted.gitlab.json')) as { id: number }[];
    assert.deepEqual(raw.map((n) => n.id), [9305, 9304, 9303, 9302, 9301]);
    const input = readThreadInput(fixture('threads/interrupted.gitlab.json'));
    assert.equal(input.platform, 'gitlab');
    assert.deepEqual(input.comments.map((c) => c.id), [9301, 9302, 9303, 9304, 9305]);
    assert.equal(input.comments[0].author, 'forge-bot');
    const { annotations } = parseThread(input.comments);
    assert.deepEqual(annotations.map((a) => `${a.type}:${a.status}`), ['INVESTIGATOR:complete', 'CONTEXT:complete', 'BUILDER:interrupted', 'GATE_FAILED:complete']);
  });

  it('accepts `note` (GitLab webhooks), gh --json shapes, a single object and plain Markdown', () => {
    assert.equal(normalizeComments([{ id: 1, note: '<!-- FORGE:GATE_FAILED -->' }]).comments[0].body, '<!-- FORGE:GATE_FAILED -->');
    const gh = readThreadInput(JSON.stringify({ comments: [{ author: { login: 'a' }, body: 'x', createdAt: '2026-01-01T00:00:00Z', url: 'https://github.com/o/r/issues/1#c' }], labels: [{ name: 'workflow:building' }] }));
    assert.equal(gh.platform, 'gh-cli');
    assert.deepEqual(gh.labels, ['workflow:building']);
    assert.equal(readThreadInput('{"body": "<!-- FORGE:PUSH_FAILED -->"}').comments.length, 1);
    const md = readThreadInput('[link](x) and text\n<!-- FORGE:PUSH_BLOCKED -->');
    assert.equal(md.platform, 'markdown');
    assert.equal(parseThread(md.comments).annotations[0].type, 'PUSH_BLOCKED');
  });

  it('reads a GitLab Note Hook payload: the note, its author, the issue labels and description (D9)', () => {
    const input = readThreadInput(fixture('threads/note-hook.gitlab.json'));
    assert.equal(input.platform, 'gitlab');
    assert.deepEqual(input.labels, ['workflow:building', 'bug']);
    assert.deepEqual(input.comments.map((c) => [c.index, c.issueBody ?? false, c.id, c.author]), [[-1, true, undefined, undefined], [0, false, 9310, 'forge-bot']]);
    const { annotations } = parseThread(input.comments);
    assert.deepEqual(annotations.map((a) => [a.tag, a.comment?.author]), [['FORGE:PRIOR_GIST', undefined], ['FORGE:GATE_FAILED', 'forge-bot']]);
    assert.equal(annotations[1].comment?.url, 'https://gitlab.example/acme/platform/payments/-/issues/12#note_9310');
    assert.equal(evaluateLabels(input.labels, annotations).diagnostics[0].code, 'FORGE_MARKER_UNHANDLED');
  });

  it('skips comments without a body with a warning', () => {
    const r = normalizeComments([{ id: 1, body: null }, { id: 2, body: 'ok' }]);
    assert.deepEqual(r.comments.map((c) => c.id), [2]);
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['FORGE_COMMENT_NO_BODY']);
  });

  it('numbers comments by their position in the input, past skipped ones and through reordering (D7)', () => {
    const input = readThreadInput(
      JSON.stringify([
        { id: 11, user: { login: 'alice' }, created_at: '2026-01-01T00:00:00Z', body: null },
        { id: 12, user: { login: 'bot' }, created_at: '2026-01-01T00:01:00Z', body: '<!-- FORGE:GATE_FAILED -->' },
      ]),
    );
    assert.deepEqual(input.diagnostics.map((d) => d.file), ['comments[0]']);
    const parsed = parseThread(input.comments);
    assert.deepEqual(parsed.annotations.map((a) => a.comment?.index), [1]);
    const report = runConformanceCheck(parsed, { require: ['GATE_FAILED'] });
    assert.deepEqual(report.entries[0].first, { comment: 1, line: 1 });
    assert.deepEqual(report.labels.errorMarkers, [{ type: 'GATE_FAILED', comment: 1, line: 1 }]);
    assert.ok(formatConformanceReport(report).includes('marker FORGE:GATE_FAILED (comment 2): A quality gate failed after its retry budget'));
    const bad = parseThread(readThreadInput('[{"id": 1, "body": null}, {"id": 2, "body": "<!-- FORGE:GATE_FAILED: x -->"}]').comments);
    assert.equal(bad.annotations[0].diagnostics[0].file, 'comment 2 (id 2)');
  });

  it('orders a newest-first thread by date for the label and chain checks, but numbers it as given', () => {
    const input = readThreadInput(fixture('threads/interrupted.gitlab.json'));
    // input order: 9305 (the newest, GATE_FAILED) ... 9301 (the oldest, INVESTIGATOR)
    assert.deepEqual(input.comments.map((c) => [c.id, c.index]), [[9301, 4], [9302, 3], [9303, 2], [9304, 1], [9305, 0]]);
    const { annotations } = parseThread(input.comments);
    assert.deepEqual(annotations.map((a) => [a.type, a.comment?.index]), [['INVESTIGATOR', 4], ['CONTEXT', 3], ['BUILDER', 1], ['GATE_FAILED', 0]]);
    const chain = checkChain(annotations, ['INVESTIGATOR', 'BUILDER']);
    assert.deepEqual(chain.outOfOrder, []);
    assert.deepEqual(chain.entries.find((e) => e.type === 'INVESTIGATOR')?.first, { comment: 4, line: 1 });
    // the marker is the latest annotation: unhandled, whatever its place in the input
    const labels = evaluateLabels(['workflow:building'], annotations);
    assert.deepEqual([labels.stop, labels.diagnostics.map((d) => d.code)], [true, ['FORGE_MARKER_UNHANDLED']]);
  });

  it('refuses JSON that is not a thread', () => {
    assert.throws(() => readThreadInput('{"title": "x"}'), (e) => isSfError(e, 'SF_E_ANNOTATION'));
  });

  it('normalizes GitHub, gh, GitLab and Gitea label lists', () => {
    assert.deepEqual(normalizeLabels(JSON.parse(fixture('labels/worked-example.github.json'))), ['bug', 'workflow:merged']);
    assert.deepEqual(normalizeLabels(JSON.parse(fixture('labels/gh-issue-view.json'))), ['workflow:in-review']);
    assert.deepEqual(normalizeLabels(JSON.parse(fixture('labels/gitlab.json'))), ['workflow:building', 'needs-human', 'bug']);
    assert.deepEqual(normalizeLabels(JSON.parse(fixture('labels/lifecycle.gitea.json'))), ['workflow:merged']);
    assert.throws(() => normalizeLabels('workflow:merged'), (e) => isSfError(e, 'SF_E_ANNOTATION'));
  });

  it('warns, with the position, when input that starts like JSON is not JSON (defect 9)', () => {
    const input = readThreadInput('[\n {"id":1,"user":{"login":"a"},"body":"<!-- FORGE:GATE_FAILED -->"},\n]');
    assert.equal(input.platform, 'markdown');
    assert.deepEqual(input.diagnostics.map((d) => [d.code, d.severity, d.line, d.column]), [['FORGE_INPUT_NOT_JSON', 'warning', 3, 1]]);
    assert.match(input.diagnostics[0].message, /starts with "\[" but is not valid JSON \(ValueExpected at line 3, column 1\); it was read as one Markdown body/);
    assert.deepEqual(readThreadInput('<!-- FORGE:GATE_FAILED -->').diagnostics, []);
  });

  it('reads "labels": null (sf forge fetch --json without labels) as no labels read', () => {
    assert.equal(readThreadInput('{"comments": [], "labels": null}').labels, null);
  });

  it('parses a thread of 200,000 annotations without overflowing the stack (defect 4)', () => {
    const input = readThreadInput('<!-- FORGE:GATE_FAILED -->\n'.repeat(200_000));
    assert.equal(parseThread(input.comments).annotations.length, 200_000);
    // thread-level findings too: one orphan sentinel per line
    const orphans = parseThread(normalizeComments([{ id: 1, body: '<!-- INVESTIGATION:COMPLETE -->\n'.repeat(200_000) }]).comments);
    assert.equal(orphans.diagnostics.length, 200_000);
  });
});
