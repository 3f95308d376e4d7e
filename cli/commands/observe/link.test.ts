import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/** `sf observe unlink` of what is not linked: one not-found error, the same with and without --json (D6). */
describe('sf observe unlink without such a link', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  before(async () => (tmp = await tempDir('sf-observe-unlink-')));
  after(() => tmp.cleanup());
  const sf = (args: string[]) => runSf(args, { cwd: tmp.path, env: { HOME: join(tmp.path, 'home'), SF_HOME: join(tmp.path, 'home', '.sf') } });

  it('is SF_E_NOT_FOUND (exit 3) on stderr naming the repository or path, with a hint, in both modes', async () => {
    const byRepo = await sf(['observe', 'unlink', '--repo', 'acme/other']);
    assert.equal(byRepo.code, 3, byRepo.stderr);
    assert.equal(byRepo.stdout, '');
    assert.match(byRepo.stderr, /^error\[SF_E_NOT_FOUND\]: there is no repository link to acme\/other\n  hint: `sf observe status` lists the links/);
    const byPath = await sf(['observe', 'unlink', join(tmp.path, 'nowhere'), '--json']);
    assert.equal(byPath.code, 3);
    assert.equal(byPath.stdout, '');
    const { error } = JSON.parse(byPath.stderr);
    assert.equal(error.code, 'SF_E_NOT_FOUND');
    assert.match(error.message, /no repository link of .*nowhere$/);
    assert.ok(error.hint);
  });
});
