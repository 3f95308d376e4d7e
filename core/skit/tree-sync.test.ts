import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { walkTree, type TreeFile } from './tree.js';
import { walkTreeSync } from './tree-sync.js';

describe('walkTreeSync (core/skit/tree-sync)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    dir = await tempDir('sf-walk-');
    await mkdir(join(dir.path, 'kit', 'skills', 'a', 'scripts'), { recursive: true });
    await mkdir(join(dir.path, 'kit', '.git'), { recursive: true });
    await writeFile(join(dir.path, 'kit', 'README.md'), '# kit');
    await writeFile(join(dir.path, 'kit', 'skills', 'a', 'SKILL.md'), 'skill');
    await writeFile(join(dir.path, 'kit', 'skills', 'a', 'scripts', 'run.sh'), 'echo', { mode: 0o755 });
    await writeFile(join(dir.path, 'kit', '.git', 'HEAD'), 'ref');
    await symlink('/etc/passwd', join(dir.path, 'kit', 'skills', 'a', 'passwd'));
  });
  after(() => dir.cleanup());

  it('lists what walkTree lists, with the same disk paths, for absolute, trailing-slash and relative roots', async () => {
    const abs = join(dir.path, 'kit');
    const rel = relative(process.cwd(), abs);
    for (const root of [abs, `${abs}/`, rel, `./${rel}`, `${rel}/`]) {
      const expected = await walkTree(root);
      assert.deepEqual(walkTreeSync(root), expected, root);
      for (const f of expected.files) assert.equal(f.abs, join(root, ...f.path.split('/')), root);
    }
    assert.deepEqual(
      walkTreeSync(abs).files.map((f) => [f.path, f.mode]),
      [
        ['README.md', 'file'],
        ['skills/a/SKILL.md', 'file'],
        ['skills/a/scripts/run.sh', 'exec'],
      ],
    );
    assert.deepEqual(walkTreeSync(abs).oddities, [{ path: 'skills/a/passwd', kind: 'symlink' }]);
  });

  it('reports each file to onFile as it is found', () => {
    const seen: TreeFile[] = [];
    const tree = walkTreeSync(join(dir.path, 'kit'), { onFile: (f) => seen.push(f) });
    assert.deepEqual([...seen].sort((a, b) => (a.path < b.path ? -1 : 1)), tree.files);
  });
});
