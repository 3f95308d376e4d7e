import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot, tempDir } from '../../../test-support/index.js';
import { assertDirSynced, assertDurableRename, mkdirIndex, traceSyscalls } from '../../../test-support/syscalls.js';
import { BlobDir } from './blob-dir.js';

const sha = (b: string) => createHash('sha256').update(b).digest('hex');

describe('hub/storage/embedded/blob-dir', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => (dir = await tempDir('sf-blobdir-')));
  afterEach(() => dir.cleanup());

  it('stores content-addressed blobs once, complete, with no temp files left', async () => {
    const blobs = new BlobDir(join(dir.path, 'blobs'));
    const key = await blobs.put(Buffer.from('raw batch'));
    assert.equal(key, sha('raw batch'));
    assert.equal(await blobs.put(Buffer.from('raw batch')), key, 'a second put of the same bytes is a no-op');
    assert.equal((await blobs.get(key))!.toString(), 'raw batch');
    assert.deepEqual(await readdir(join(dir.path, 'blobs', key.slice(0, 2))), [key]);
    // the shard directory removed behind the store's back is created again
    await rm(join(dir.path, 'blobs', key.slice(0, 2)), { recursive: true });
    await blobs.put(Buffer.from('raw batch'));
    assert.equal(await readFile(join(dir.path, 'blobs', key.slice(0, 2), key), 'utf8'), 'raw batch');
  });

  it('makes a put durable before it resolves: the blob fsynced, renamed, its shard and the new directories fsynced', async () => {
    const root = join(dir.path, 'data', 'blobs');
    const key = sha('acknowledged batch');
    const calls = await traceSyscalls(`
      const { BlobDir } = await import(${JSON.stringify(join(repoRoot, 'hub/storage/embedded/blob-dir.ts'))});
      await new BlobDir(${JSON.stringify(root)}).put(Buffer.from('acknowledged batch'));
    `);
    const target = join(root, key.slice(0, 2), key);
    assertDurableRename(calls, target);
    // the directories mkdir created (data, blobs, the shard) are named in fsynced parents
    for (const created of [join(dir.path, 'data'), root, join(root, key.slice(0, 2))]) {
      const made = mkdirIndex(calls, created);
      assert.ok(made >= 0, `${created} was created`);
      assertDirSynced(calls, join(created, '..'), made, `creating ${created}`);
    }
  });
});
