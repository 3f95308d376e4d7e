import { strict as assert } from 'node:assert';
import { chmod, lstat, readFile, readdir, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { assertDurableRename, namesNotMadeDurable, traceCall } from '../../test-support/syscalls.js';
import { removeTreeAtomic, writeFileAtomic } from './atomic.js';

describe('core/fs/atomic', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => (dir = await tempDir('sf-atomic-')));
  afterEach(() => dir.cleanup());

  it('replaces a file, keeping its mode and leaving no temp file', async () => {
    const p = join(dir.path, 'settings.json');
    await writeFile(p, 'old');
    await chmod(p, 0o600);
    await writeFileAtomic(p, 'new');
    assert.equal(await readFile(p, 'utf8'), 'new');
    assert.equal((await stat(p)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(dir.path), ['settings.json']);
  });

  it('writes through a symlink and keeps the link (dotfile managers)', async () => {
    const target = join(dir.path, 'real.json');
    const link = join(dir.path, 'link.json');
    await writeFile(target, 'old');
    await symlink(target, link);
    await writeFileAtomic(link, 'new');
    assert.ok((await lstat(link)).isSymbolicLink());
    assert.equal(await readlink(link), target);
    assert.equal(await readFile(target, 'utf8'), 'new');
  });

  it('removes a tree by renaming it away first', async () => {
    const tree = join(dir.path, 'tree');
    await writeFileAtomic(join(tree, 'a', 'b.txt'), 'x');
    await removeTreeAtomic(tree, join(dir.path, 'trash'));
    assert.deepEqual(await readdir(dir.path), []);
    await removeTreeAtomic(tree, join(dir.path, 'trash'));
  });

  it('writes durably: data fsynced before the rename, the directory after, and the parents of directories it created', async () => {
    const file = join(dir.path, 'home', '.config', 'host', 'config.json');
    const calls = await traceCall('core/fs/atomic.ts', 'writeFileAtomic', file, '{}');
    assertDurableRename(calls, file);
    assert.deepEqual(namesNotMadeDurable(calls, (p) => p.endsWith('.tmp')), []);
    assert.equal(await readFile(file, 'utf8'), '{}');
  });
});
