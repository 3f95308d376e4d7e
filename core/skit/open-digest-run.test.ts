import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { isSfError } from '../errors/index.js';
import { offerEarlyHashWorkers } from './early-hash-workers.js';
import { spawnHashWorker, startOpenDigestRun } from './file-digests.js';
import { HEAD_BYTES } from './head-bytes.js';
import { startTreeDigests } from './tree-digests.js';
import { walkTree } from './tree.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('open digest runs: files hashed while they are still being found (core/skit/file-digests)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let files: { abs: string; size: number }[];

  beforeEach(async () => {
    dir = await tempDir('sf-open-run-');
    files = Array.from({ length: 150 }, (_, i) => {
      const abs = join(dir.path, `f-${String(i).padStart(3, '0')}.bin`);
      const size = [0, 1, HEAD_BYTES, 999, 70_000, 300_000][i % 6];
      writeFileSync(abs, Buffer.from(Array.from({ length: size }, (_, k) => (k * 13 + i) & 0xff)));
      return { abs, size };
    });
  });
  afterEach(() => dir.cleanup());

  it('hashes files added one at a time on two threads and returns them in the order added', async () => {
    const run = startOpenDigestRun(1000, { threads: 2, chunkSize: 4096 });
    const indices = files.map((f) => run.add(f));
    assert.deepEqual(indices, files.map((_, i) => i));
    // heads taken before close: some files are still waiting in an unpublished batch
    for (const i of [149, 0, 75, 148]) assert.deepEqual(Buffer.from(run.head(i)!), readFileSync(files[i].abs).subarray(0, HEAD_BYTES));
    const digests = await run.finish();
    assert.deepEqual(digests, files.map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })));
  });

  it('refuses files beyond its capacity, and any after close', async () => {
    const run = startOpenDigestRun(2, { threads: 1 });
    assert.deepEqual([run.add(files[0]), run.add(files[1]), run.add(files[2])], [0, 1, -1]);
    run.close();
    assert.equal(run.add(files[3]), -1);
    assert.equal((await run.finish()).length, 2);
  });

  it('names a file that vanished before it was read', async () => {
    rmSync(files[40].abs);
    const run = startOpenDigestRun(1000, { threads: 2 });
    for (const f of files) run.add(f);
    await assert.rejects(run.finish(), (e: unknown) => isSfError(e, 'SF_E_IO') && e.message.includes(files[40].abs));
  });

  it('streams a walked SKIT to a worker started ahead, with the same digests as reading it afresh', async () => {
    writeFileSync(join(dir.path, 'README.md'), '# skit\n');
    const worker = spawnHashWorker();
    worker.unref();
    const ended = new Promise<Error | null>((resolve) => worker.once('exit', () => resolve(null)));
    offerEarlyHashWorkers([{ worker, ended }]);
    const early = startTreeDigests(dir.path);
    const { files: walked } = await walkTree(dir.path);
    assert.deepEqual(early.tree?.files, walked);
    assert.deepEqual(Buffer.from(early.headFor(early.tree!.files[5])!), readFileSync(walked[5].abs).subarray(0, HEAD_BYTES));
    assert.deepEqual(await early.digestsFor(walked), walked.map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })));
    assert.equal(await ended, null, 'the early worker took the streamed job and finished');
  });
});
