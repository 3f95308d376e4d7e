import { strict as assert } from 'node:assert';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { startNewFilesDurable, writeNewFilesDurable } from './new-files.js';

describe('core/fs/new-files', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => (dir = await tempDir('sf-newfiles-')));
  afterEach(() => dir.cleanup());

  it('creates nested files with their exact bytes and modes, across several fsync batches', async () => {
    const files = Array.from({ length: 300 }, (_, i) => ({
      path: join(dir.path, `d${i % 7}`, 'sub', `f${i}.txt`),
      bytes: Buffer.from(`file ${i}\n`.repeat(i)),
      mode: i % 3 === 0 ? 0o755 : 0o644,
    }));
    await writeNewFilesDurable(files);
    for (const f of files) {
      assert.deepEqual(await readFile(f.path), f.bytes);
      assert.equal((await stat(f.path)).mode & 0o777, f.mode);
    }
    assert.equal((await readdir(join(dir.path, 'd0', 'sub'))).length, 43);
  });

  it('refuses to replace an existing file', async () => {
    const path = join(dir.path, 'taken.txt');
    await writeFile(path, 'mine');
    await assert.rejects(startNewFilesDurable([{ path, bytes: Buffer.from('theirs'), mode: 0o644 }]), /EEXIST/);
    assert.equal(await readFile(path, 'utf8'), 'mine');
  });

  it('has written the first batch when it returns, before the fsyncs are awaited', async () => {
    const path = join(dir.path, 'early.txt');
    const synced = startNewFilesDurable([{ path, bytes: Buffer.from('now'), mode: 0o644 }]);
    assert.equal(await readFile(path, 'utf8'), 'now');
    await synced;
  });
});
