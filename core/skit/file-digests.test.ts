import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { isSfError } from '../errors/index.js';
import { digestFiles, prestartHashWorkers, spawnHashWorker } from './file-digests.js';
import { ABORT, createHashJob, DONE } from './hash-job.js';
import { startTreeDigests } from './tree-digests.js';
import { walkTree } from './tree.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const CHUNK = 1024;
// sizes around the read-buffer boundary, plus an empty file
const SIZES = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 5000, 70_000];

describe('file digests (core/skit/file-digests)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let files: { abs: string; size: number }[];

  before(async () => {
    dir = await tempDir('sf-digests-');
    files = [];
    for (let copy = 0; copy < 5; copy++) {
      SIZES.forEach((size, i) => {
        const abs = join(dir.path, `f-${copy}-${i}.bin`);
        const bytes = Buffer.alloc(size);
        for (let k = 0; k < size; k++) bytes[k] = (k * 31 + i + copy) & 0xff;
        writeFileSync(abs, bytes);
        files.push({ abs, size });
      });
    }
  });
  after(() => dir.cleanup());

  for (const threads of [1, 3]) {
    it(`matches sha256 of the whole file across read-buffer boundaries (threads: ${threads})`, async () => {
      const got = await digestFiles(files, { threads, chunkSize: CHUNK });
      assert.deepEqual(
        got,
        files.map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })),
      );
    });

    it(`names the file that cannot be read (threads: ${threads})`, async () => {
      const missing = join(dir.path, 'gone.bin');
      await assert.rejects(
        digestFiles([...files, { abs: missing, size: 10 }], { threads, chunkSize: CHUNK }),
        (e: unknown) => isSfError(e, 'SF_E_IO') && e.message.includes(missing) && e.data?.errno === 'ENOENT',
      );
    });
  }

  it('hashes what a file holds when its listed size is stale (grew or shrank since it was listed)', async () => {
    const small = files.find((f) => f.size === 5000)!;
    const large = files.find((f) => f.size === 70_000)!;
    const stale = [
      { abs: small.abs, size: small.size - 1 },
      { abs: small.abs, size: small.size + 1 },
      { abs: large.abs, size: large.size - CHUNK },
      { abs: large.abs, size: -1 },
    ];
    // a chunk larger than the files: each fits one read, the case that may skip the second read
    const got = await digestFiles(stale, { threads: 1, chunkSize: 128 * 1024 });
    assert.deepEqual(got, [small, small, large, large].map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })));
  });

  it('workers started before the job exists take it when it is handed over', async () => {
    const workers = prestartHashWorkers(2);
    assert.equal(workers.count, 2);
    const got = await digestFiles(files, { workers, chunkSize: CHUNK });
    assert.deepEqual(
      got,
      files.map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })),
    );
  });

  it('prestarted workers that do not fit the job are stopped, and the job still completes', async () => {
    // two files leave work for one worker only
    const two = files.slice(0, 2);
    const got = await digestFiles(two, { workers: prestartHashWorkers(2), chunkSize: CHUNK });
    assert.deepEqual(
      got,
      two.map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })),
    );
    // disposing of unused workers lets the process exit (mocha would hang otherwise)
    prestartHashWorkers(1).dispose();
  });

  it('a hash worker alone completes a shared job (the worker entry loads and writes shared memory)', async () => {
    const job = createHashJob(
      files.map((f) => f.abs),
      files.map((_, i) => i),
      CHUNK,
    );
    const worker = spawnHashWorker(job);
    const message = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    assert.deepEqual(message, { type: 'end', failure: null });
    assert.equal(Atomics.load(job.ctrl, DONE), files.length);
    const digests = Buffer.from(job.digests.buffer);
    files.forEach((f, i) => assert.equal(digests.toString('hex', i * 32, i * 32 + 32), sha(readFileSync(f.abs))));
  });

  it('a hash worker reports the file it could not read and aborts the job', async () => {
    const missing = join(dir.path, 'missing.bin');
    const job = createHashJob([files[0].abs, missing, files[1].abs], [1, 0, 2], CHUNK);
    const message = await new Promise((resolve, reject) => {
      const worker = spawnHashWorker(job);
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    assert.deepEqual(message, { type: 'end', failure: { path: missing, errno: 'ENOENT', message: `ENOENT: no such file or directory, open '${missing}'` } });
    assert.equal(Atomics.load(job.ctrl, ABORT), 1);
    assert.equal(Atomics.load(job.ctrl, DONE), 0, 'nothing is claimed after the abort');
  });
});

describe('early tree digests (core/skit/tree-digests)', () => {
  it('re-hashes files that changed or appeared after the early walk', async () => {
    const dir = await tempDir('sf-early-');
    try {
      writeFileSync(join(dir.path, 'SKILL.md'), 'skill');
      writeFileSync(join(dir.path, 'a.md'), 'alpha');
      writeFileSync(join(dir.path, 'b.md'), 'bravo');
      const early = startTreeDigests(dir.path, { threads: 1 });
      await early.digestsFor([]); // the early run is complete: b.md was hashed as "bravo"
      appendFileSync(join(dir.path, 'b.md'), ' grew');
      writeFileSync(join(dir.path, 'c.md'), 'charlie');
      const { files } = await walkTree(dir.path);
      const got = await early.digestsFor(files);
      assert.deepEqual(
        got.map((d) => d.sha256),
        files.map((f) => sha(readFileSync(f.abs))),
      );
      assert.deepEqual(
        files.map((f) => f.path),
        ['SKILL.md', 'a.md', 'b.md', 'c.md'],
      );
    } finally {
      await dir.cleanup();
    }
  });

  it('re-hashes a file that grew after the early walk even when the listing is otherwise the same', async () => {
    const dir = await tempDir('sf-early-');
    try {
      writeFileSync(join(dir.path, 'SKILL.md'), 'skill');
      writeFileSync(join(dir.path, 'a.md'), 'alpha');
      const early = startTreeDigests(dir.path, { threads: 1 });
      await early.digestsFor([]);
      appendFileSync(join(dir.path, 'a.md'), ' grew');
      const { files } = await walkTree(dir.path);
      assert.deepEqual(
        (await early.digestsFor(files)).map((d) => d.sha256),
        files.map((f) => sha(readFileSync(f.abs))),
      );
    } finally {
      await dir.cleanup();
    }
  });

  it('starts the workers during the walk of a large SKIT and hands out the walk it did', async () => {
    const dir = await tempDir('sf-early-');
    try {
      writeFileSync(join(dir.path, 'README.md'), '# skit');
      mkdirSync(join(dir.path, 'data'));
      // 9 MiB: over the size below which one thread hashes alone
      for (let i = 0; i < 9; i++) writeFileSync(join(dir.path, 'data', `f${i}.bin`), Buffer.alloc(1024 * 1024, i + 1));
      const early = startTreeDigests(dir.path);
      const { files } = await walkTree(dir.path);
      assert.deepEqual(early.tree?.files, files);
      assert.deepEqual(
        await early.digestsFor(files),
        files.map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })),
      );
    } finally {
      await dir.cleanup();
    }
  });

  it('cancel stops the early work without leaving the process waiting', async () => {
    const dir = await tempDir('sf-early-');
    try {
      writeFileSync(join(dir.path, 'README.md'), '# skit');
      for (let i = 0; i < 50; i++) writeFileSync(join(dir.path, `f${i}.bin`), Buffer.alloc(200_000, i));
      const early = startTreeDigests(dir.path, { threads: 3 });
      early.cancel();
    } finally {
      await dir.cleanup();
    }
  });

  it('does not pre-hash a directory that is not a SKIT, or cannot be walked', async () => {
    assert.deepEqual(await startTreeDigests('/nonexistent/sf-early').digestsFor([]), []);
    const dir = await tempDir('sf-early-');
    try {
      writeFileSync(join(dir.path, 'data.bin'), 'x');
      const { files } = await walkTree(dir.path);
      assert.deepEqual(await startTreeDigests(dir.path).digestsFor(files), [{ sha256: sha(Buffer.from('x')), size: 1 }]);
    } finally {
      await dir.cleanup();
    }
  });
});
