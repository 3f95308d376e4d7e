import assert from 'node:assert/strict';
import { isSfError } from '../errors/index.js';
import { scanBlocks } from './code-blocks.js';
import { opensHiddenComment } from './hidden-comment.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';

const codeLines = (body: string) => {
  const lines = body.split('\n');
  const { code } = scanBlocks(lines);
  return lines.filter((_, i) => code[i]);
};
const types = (body: string) => parseBody(body).annotations.map((a) => `${a.type}:${a.status}`);

const BUILDER_OPEN = '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: `b`\n**Commits**: a1b2c3d\n**Files changed**: 1\n';

describe('tags inside code blocks (defect 3)', () => {
  it('ignores tags in fenced code blocks of any fence length, with an info finding', () => {
    for (const fence of ['```', '~~~', '````', '~~~~~']) {
      const body = `Example:\n\n${fence}md\n<!-- FORGE:GATE_FAILED -->\n<!-- FORGE:BUILDER -->\n${fence}\n`;
      const r = parseBody(body);
      assert.deepEqual(r.annotations, [], fence);
      assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity, d.line]), [['FORGE_TAG_IN_CODE', 'info', 4], ['FORGE_TAG_IN_CODE', 'info', 5]], fence);
    }
  });

  it('closes a fence only with the same character, at least as long', () => {
    const body = '````\n```\n~~~~\n<!-- FORGE:GATE_FAILED -->\n````\n<!-- FORGE:PUSH_FAILED -->';
    assert.deepEqual(types(body), ['PUSH_FAILED:complete']);
  });

  it('treats a fence left open as code to the end of the comment, as GitHub shows it', () => {
    assert.deepEqual(types(`${BUILDER_OPEN}\n### Approach\n\`\`\`\nsome code\n\n<!-- FORGE:BUILDER:COMPLETE -->`), ['BUILDER:interrupted']);
  });

  it('ignores tags in indented code blocks, but not in a paragraph continuation line', () => {
    assert.deepEqual(types('Intro.\n\n    <!-- FORGE:GATE_FAILED -->\n\t<!-- FORGE:PUSH_FAILED -->'), []);
    assert.deepEqual(types('Intro.\n    <!-- FORGE:GATE_FAILED -->'), ['GATE_FAILED:complete']);
    // an opening tag is a one-line HTML block: a 4-space line right after it is code
    assert.deepEqual(types('<!-- FORGE:REVIEW_STARTED -->\n    <!-- FORGE:GATE_FAILED -->'), ['REVIEW_STARTED:complete']);
  });

  it('follows list items: their content column shifts the 4-space rule, and a fence ends with its item', () => {
    assert.deepEqual(codeLines('- item\n\n    more of the item\n- ```\n  <!-- FORGE:X -->\n  ```\n<!-- FORGE:Y -->'), ['- ```', '  <!-- FORGE:X -->', '  ```']);
    assert.deepEqual(types('- ```\n  <!-- FORGE:GATE_FAILED -->\n<!-- FORGE:PUSH_FAILED -->'), ['PUSH_FAILED:complete']);
    assert.deepEqual(codeLines('1. a\n\n       code\n2. b'), ['       code']);
  });

  it('does not read a fence inside an HTML block', () => {
    assert.deepEqual(codeLines('<details>\n```\n<!-- FORGE:X -->\n```\n\n</details>'), []);
    assert.deepEqual(codeLines('<!-- a note\n```\n-->\n<!-- FORGE:X -->'), []);
  });

  it('keeps code lines in the annotation body, where a ### line is not a section', () => {
    const body = `${BUILDER_OPEN}\n### Approach\nSee:\n\n\`\`\`\n### not a section\n<!-- FORGE:BUILDER:COMPLETE -->\n\`\`\`\n\n<!-- FORGE:BUILDER:COMPLETE -->`;
    const [a] = parseBody(body).annotations;
    assert.equal(a.status, 'complete');
    assert.equal(a.fields?.approach, 'See:\n\n```\n### not a section\n<!-- FORGE:BUILDER:COMPLETE -->\n```');
    assert.equal(a.fields?.extraSections, undefined);
    assert.deepEqual(a.diagnostics.map((d) => d.code), ['FORGE_TAG_IN_CODE']);
  });

  it('stays linear on hostile input: deep list nesting, backtick runs of every length', () => {
    let runs = '';
    for (let k = 1; runs.length < 1_000_000; k++) runs += '`'.repeat(k) + ' ';
    const started = Date.now();
    scanBlocks(['- '.repeat(100_000) + 'x', '* '.repeat(100_000) + 'x', '<a ' + 'b '.repeat(100_000)]);
    assert.equal(opensHiddenComment(runs + '<!--'), true);
    assert.equal(parseBody(`<!-- FORGE:CONTEXT -->\n${runs}\n${'- '.repeat(100_000)}`).annotations.length, 1);
    assert.ok(Date.now() - started < 3000, String(Date.now() - started));
  });

  it('render refuses free text that leaves a code fence open, which would swallow the sentinel', () => {
    const data = { branch: 'b', commits: ['a1b2c3d'], filesChanged: 1, approach: 'see\n```ts\nconst x = 1;' };
    assert.throws(() => renderAnnotation('BUILDER', data), (e: unknown) => isSfError(e, 'SF_E_ANNOTATION') && /approach opens a code fence/.test(e.message));
    const closed = renderAnnotation('BUILDER', { ...data, approach: 'see\n```ts\nconst x = 1;\n```' });
    const [a] = parseBody(closed).annotations;
    assert.equal(a.status, 'complete');
    assert.equal(renderAnnotation('BUILDER', a.fields), closed);
  });
});
