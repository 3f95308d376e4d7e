import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../../test-support/index.js';
import { checkChain } from './chain.js';
import { formatConformanceReport, parseRequireList, runConformanceCheck } from './check.js';
import { normalizeLabels, parseThread, readThreadInput } from './thread.js';

const load = (p: string) => parseThread(readThreadInput(readFileSync(join(fixturesDir, 'annotations', p), 'utf8')).comments);
const labels = (p: string) => normalizeLabels(JSON.parse(readFileSync(join(fixturesDir, 'annotations', p), 'utf8')));

describe('conformance check (7.3) and context chain', () => {
  it('the worked example passes with its three annotations and reports the terminal label', () => {
    const r = runConformanceCheck(load('threads/worked-example.github.json'), { require: ['INVESTIGATOR', 'BUILDER', 'TRAJECTORY'], labels: labels('labels/worked-example.github.json') });
    assert.equal(r.ok, true);
    assert.deepEqual(formatConformanceReport(r), [
      'ok   FORGE:INVESTIGATOR (1)',
      'ok   FORGE:BUILDER (1)',
      'ok   FORGE:TRAJECTORY (1)',
      'investigator complete',
      'builder complete',
      'trajectory complete (by structure: the spec defines no sentinel for this type)',
      'labels: ["workflow:merged"]',
      'terminal: workflow:merged (processing stops)',
      'result: PASS (3 required)',
    ]);
  });

  it('uses the spec’s 7.3 list by default and reports MISS for each absent type', () => {
    const r = runConformanceCheck(load('threads/worked-example.github.json'));
    assert.equal(r.ok, false);
    const text = formatConformanceReport(r);
    assert.deepEqual(text.filter((l) => l.startsWith('MISS')), ['MISS FORGE:CONTRACT', 'MISS FORGE:CONTEXT', 'MISS FORGE:ARCHITECT']);
    assert.equal(text.at(-1), 'result: FAIL (FORGE:CONTRACT missing, FORGE:CONTEXT missing, FORGE:ARCHITECT missing)');
  });

  it('fails on an interrupted required annotation, reports time-limited ones, markers and the stop', () => {
    const r = runConformanceCheck(load('threads/interrupted.gitlab.json'), { require: ['INVESTIGATOR', 'BUILDER'], labels: labels('labels/gitlab.json') });
    assert.equal(r.ok, false);
    assert.deepEqual(r.entries.map((e) => [e.type, e.problem ?? 'ok']), [['INVESTIGATOR', 'ok'], ['BUILDER', 'interrupted'], ['CONTEXT', 'ok']]);
    const text = formatConformanceReport(r);
    assert.deepEqual(text.slice(0, 2), ['ok   FORGE:INVESTIGATOR (1)', 'INTR FORGE:BUILDER (1)']);
    assert.ok(text.includes('builder INCOMPLETE (interrupted: no <!-- FORGE:BUILDER:COMPLETE -->)'));
    assert.ok(text.includes('context complete (time-limited: <!-- FORGE:CONTEXT:PARTIAL --> ended it at its time budget) (not required)'));
    assert.ok(text.includes('terminal: needs-human (processing stops)'));
    // the notes are newest first: the marker is the first element of the input, whatever its date
    assert.ok(text.some((l) => l.startsWith('marker FORGE:GATE_FAILED (comment 1)')));
  });

  it('a re-run supersedes an earlier partial annotation; unknown types are skipped', () => {
    const r = runConformanceCheck(load('threads/lifecycle.gitea.json'), { labels: labels('labels/lifecycle.gitea.json') });
    assert.equal(r.ok, true);
    assert.deepEqual(r.entries.find((e) => e.type === 'CONTEXT')?.count, 2);
    assert.deepEqual(r.skipped, [{ tag: 'FORGE:ACME_SECURITY_SCAN', count: 1 }]);
    assert.deepEqual(r.labels.diagnostics, []);
  });

  it('a complete required annotation with enum errors fails as invalid', () => {
    const body = '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: `b`\n**Commits**: abcdef1\n**Files changed**: many\n\n<!-- FORGE:BUILDER:COMPLETE -->';
    const r = runConformanceCheck(parseThread([{ index: 0, body }]), { require: ['BUILDER'] });
    assert.deepEqual([r.ok, r.entries[0].problem], [false, 'invalid']);
    // the type's line agrees with the entry and the result line
    assert.deepEqual([formatConformanceReport(r)[0], formatConformanceReport(r).at(-1)], ['BAD  FORGE:BUILDER (1)', 'result: FAIL (FORGE:BUILDER invalid)']);
  });

  it('finds chain stages out of order and gaps', () => {
    const inv = '<!-- FORGE:INVESTIGATOR -->\nx\n<!-- INVESTIGATION:COMPLETE -->';
    const b = '<!-- FORGE:BUILDER -->\nx\n<!-- FORGE:BUILDER:COMPLETE -->';
    const c = parseThread([b, inv].map((body, index) => ({ index, body })));
    const chain = checkChain(c.annotations, ['INVESTIGATOR', 'BUILDER', 'TRAJECTORY']);
    assert.deepEqual(chain.outOfOrder, [{ type: 'BUILDER', before: 'INVESTIGATOR' }]);
    assert.deepEqual(chain.missing, ['TRAJECTORY']);
    assert.deepEqual(chain.gaps, ['CONTRACT', 'CONTEXT', 'ARCHITECT']);
    assert.deepEqual(chain.diagnostics.map((d) => d.code), ['FORGE_CHAIN_ORDER']);
  });

  it('parses --require lists with or without the FORGE: prefix', () => {
    assert.deepEqual(parseRequireList('INVESTIGATOR, forge:builder,FORGE:TRAJECTORY,,BUILDER'), { types: ['INVESTIGATOR', 'BUILDER', 'TRAJECTORY'], invalid: [] });
    assert.deepEqual(parseRequireList('INVESTIGATOR,{TYPE}').invalid, ['{TYPE}']);
  });
});
