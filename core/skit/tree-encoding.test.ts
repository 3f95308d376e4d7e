import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { walkTree } from './tree.js';
import { walkTreeSync } from './tree-sync.js';
import { validateSkitDir, validateSkitDirSync } from './validate.js';

/** `dir`/`name` where `name` is raw bytes (a file name in Latin-1, say), as a Buffer path. */
const rawPath = (dir: string, name: number[]) => Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(name)]);
const latin1 = (s: string) => [...Buffer.from(s, 'latin1')];

/**
 * A file or directory whose name is not UTF-8 (an old zip, a repository from Windows): readdir
 * decodes it with U+FFFD, and that name names nothing on disk. The walks report it (kind
 * `encoding`) instead of failing on the lstat of a name that does not exist, and validation
 * turns it into SKIT_PATH_UNSAFE, as the archive reader does for the same name.
 */
describe('file names that are not valid UTF-8 (core/skit/tree)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let kit: string;
  before(async () => {
    dir = await tempDir('sf-walk-enc-');
    kit = join(dir.path, 'kit');
    mkdirSync(join(kit, 'data'), { recursive: true });
    writeFileSync(join(kit, 'SKILL.md'), '---\nname: kit\ndescription: A test skill. Use it in tests.\n---\n\n# kit\n');
    writeFileSync(rawPath(kit, latin1('café.md')), 'x');
    mkdirSync(rawPath(join(kit, 'data'), latin1('résumé')));
    writeFileSync(Buffer.concat([rawPath(join(kit, 'data'), latin1('résumé')), Buffer.from('/inner.md')]), 'y');
    // a name that really holds U+FFFD (valid UTF-8) is an ordinary file
    writeFileSync(join(kit, 'data', 'odd\ufffdname.md'), 'z');
  });
  after(() => dir.cleanup());

  it('both walks report the names as encoding oddities, read nothing below them, and agree', async () => {
    const tree = await walkTree(kit);
    assert.deepEqual(walkTreeSync(kit), tree);
    assert.deepEqual(tree.oddities, [
      { path: 'caf\ufffd.md', kind: 'encoding' },
      { path: 'data/r\ufffdsum\ufffd', kind: 'encoding' },
    ]);
    assert.deepEqual(tree.files.map((f) => f.path), ['SKILL.md', 'data/odd\ufffdname.md']);
  });

  it('validation reports SKIT_PATH_UNSAFE ("not valid UTF-8") for each, and does not throw', async () => {
    for (const result of [await validateSkitDir(kit), validateSkitDirSync(kit)]) {
      assert.equal(result.ok, false);
      const unsafe = result.diagnostics.filter((d) => d.code === 'SKIT_PATH_UNSAFE');
      assert.deepEqual(unsafe.map((d) => d.file), ['caf\ufffd.md', 'data/r\ufffdsum\ufffd']);
      for (const d of unsafe) {
        assert.match(d.message, /not valid UTF-8/);
        assert.equal(d.severity, 'error');
        assert.match(d.hint ?? '', /UTF-8 name/);
      }
    }
  });
});
