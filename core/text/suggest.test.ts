import assert from 'node:assert/strict';
import { closestMatch, didYouMean } from './suggest.js';

describe('closestMatch / didYouMean', () => {
  const agents = ['claude-code', 'codex', 'opencode', 'cursor', 'windsurf', 'cline', 'continue'];

  it('finds a typo: a dropped, extra, wrong or swapped character, in any case', () => {
    assert.equal(closestMatch('claude-cod', agents), 'claude-code');
    assert.equal(closestMatch('claude-codee', agents), 'claude-code');
    assert.equal(closestMatch('windsrf', agents), 'windsurf');
    assert.equal(closestMatch('Cursro', agents), 'cursor');
    assert.equal(closestMatch('acme/kti', ['acme/kit', 'acme/other']), 'acme/kit');
    assert.equal(didYouMean('lnt', ['review', 'lint']), ' (did you mean "lint"?)');
  });

  it('suggests nothing for an exact match, something far off, or a tie', () => {
    assert.equal(closestMatch('codex', agents), undefined);
    assert.equal(closestMatch('vim', agents), undefined);
    assert.equal(closestMatch('ab', ['ac', 'ad']), undefined);
    assert.equal(didYouMean('zzzzzz', agents), '');
    assert.equal(closestMatch('x', []), undefined);
  });
});
