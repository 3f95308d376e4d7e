import assert from 'node:assert/strict';
import { detectFetchPlatform, issueEndpoints } from './fetch/platform.js';
import { nextLink } from './fetch/rate-limit.js';
import { parseBody } from './parse-body.js';
import { renderAnnotation } from './render.js';

/**
 * Hostile input must cost about what ordinary input of the same size costs. Times are compared
 * with a baseline measured in the same test (never an absolute bound), so a slow or busy machine
 * does not fail them; a quadratic regex costs 1,000 times the baseline or more at 256 KB.
 */
const KB256 = 256 * 1024;
const FACTOR = 10;

function timed(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** The fastest of a few runs: one slow run may be a GC pause or a busy core. */
function fastest(fn: () => unknown, runs = 5): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) best = Math.min(best, timed(fn));
  return best;
}

/**
 * Asserts that `hostile` runs within FACTOR times the baseline (at least 1 ms, below which timers
 * are noise). It is retried a few times unless a run is far past the bound, so a quadratic case
 * fails after one run instead of five.
 */
function assertLinear(what: string, baseline: () => unknown, hostile: () => unknown): void {
  const bound = FACTOR * Math.max(fastest(baseline), 1);
  let best = Infinity;
  for (let i = 0; i < 5 && best > bound; i++) {
    best = Math.min(best, timed(hostile));
    if (best > 20 * bound) break;
  }
  assert.ok(best <= bound, `${what}: ${best.toFixed(1)} ms, more than ${FACTOR} times the ${(bound / FACTOR).toFixed(1)} ms of ordinary input of the same size`);
}

const builder = (approach: string) =>
  `<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: \`b\`\n**Commits**: a1b2c3d\n**Files changed**: 1\n\n### Approach\n${approach}\n\n<!-- FORGE:BUILDER:COMPLETE -->\n`;
/** 256 KB of ordinary prose lines */
const plain = builder(('word '.repeat(15).trimEnd() + '\n').repeat(Math.ceil(KB256 / 75)));

describe('hostile input stays linear (256 KB)', () => {
  it('a line holding a long run of spaces parses like ordinary text of the same size', () => {
    const spaces = builder(' '.repeat(KB256) + 'x\nmore');
    const [a] = parseBody(spaces).annotations;
    assert.equal(a.status, 'complete');
    assert.equal((a.fields?.approach as string).length, KB256 + 6);
    assertLinear('a 256 KB run of spaces inside a line', () => parseBody(plain), () => parseBody(spaces));
    // the same run ending the line: a hard line break, kept as written
    const hardBreak = builder('x' + ' '.repeat(KB256) + '\nmore');
    assert.equal(parseBody(hardBreak).annotations[0].fields?.approach, 'x' + ' '.repeat(KB256) + '\nmore');
    assertLinear('a 256 KB run of trailing spaces', () => parseBody(plain), () => parseBody(hardBreak));
  });

  it('lines of growing indentation parse like ordinary text of the same size', () => {
    let lines = '';
    for (let k = 0; lines.length < KB256; k++) lines += ' '.repeat(k) + 'x\n';
    assertLinear('256 KB of growing indentation', () => parseBody(plain), () => parseBody(builder(lines)));
  });

  it('render checks a value with a long run of spaces like ordinary text of the same size', () => {
    const data = (approach: string) => ({ branch: 'b', commits: ['a1b2c3d'], filesChanged: 1, approach });
    const prose = ('word '.repeat(15).trimEnd() + '\n').repeat(Math.ceil(KB256 / 75)).trimEnd();
    assertLinear('render of a 256 KB run of spaces', () => renderAnnotation('BUILDER', data(prose)), () => renderAnnotation('BUILDER', data(' '.repeat(KB256) + 'x\nmore')));
  });

  it('a Link header of many "<" and an API root of many slashes are read in linear time', () => {
    const link = '<https://a/' + 'p'.repeat(KB256) + '>; rel="next"';
    assert.equal(nextLink('<'.repeat(KB256), 'https://a/'), null);
    assertLinear('a Link header of 256 KB of "<"', () => nextLink(link, 'https://a/'), () => nextLink('<'.repeat(KB256), 'https://a/'));
    const root = (path: string) => new URL('http://127.0.0.1/' + path);
    assert.equal(detectFetchPlatform(root('/'.repeat(KB256) + 'x')), 'github');
    assertLinear('an API root of 256 KB of slashes', () => issueEndpoints('github', root('p'.repeat(KB256)), 'o/r', 1, 100), () => issueEndpoints('github', root('/'.repeat(KB256) + 'x'), 'o/r', 1, 100));
    assertLinear('an API path of 256 KB of slashes', () => detectFetchPlatform(root('p'.repeat(KB256))), () => detectFetchPlatform(root('/'.repeat(KB256) + 'x')));
  });
});
