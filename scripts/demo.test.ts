import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../test-support/index.js';

/**
 * `npm run demo` is the README's first command: the demo itself runs here (with the built CLI, as
 * npm test builds it first) under the PATH npm gives it, node_modules/.bin and its agent binaries
 * included, so a check that the demo's own machine would pass cannot silently break it.
 */
describe('npm run demo', function () {
  this.timeout(120_000);

  it('runs every step to the end', () => {
    const path = `${join(repoRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`;
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'demo.mjs')], { cwd: repoRoot, env: { ...process.env, PATH: path }, encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    assert.match(r.stdout, /Demo finished\./);
  });
});
