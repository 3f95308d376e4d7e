import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { isSfError } from '../errors/index.js';
import { offerEarlyHashWorkers, takeEarlyHashWorkers } from './early-hash-workers.js';
import { prestartHashWorkers, spawnHashWorker, startDigestRun } from './file-digests.js';
import { HEAD_BYTES } from './head-bytes.js';
import { createHashJob, DONE, hashClaimedFiles, headOf } from './hash-job.js';
import { startTreeDigests } from './tree-digests.js';
import { validateSkitDirSync } from './validate.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('heads from the hashing and early hash workers (core/skit/hash-job, early-hash-workers)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let files: { abs: string; size: number }[];

  beforeEach(async () => {
    dir = await tempDir('sf-heads-');
    files = [0, 1, 2, HEAD_BYTES - 1, HEAD_BYTES, 3000, 200_000].flatMap((size, i) =>
      [0, 1, 2].map((copy) => {
        const abs = join(dir.path, `f-${i}-${copy}.bin`);
        writeFileSync(abs, Buffer.from(Array.from({ length: size }, (_, k) => (k * 7 + i + copy) & 0xff)));
        return { abs, size };
      }),
    );
  });
  afterEach(() => dir.cleanup());

  it('hands out every file\'s first bytes, hashing each file exactly once whichever thread gets it', async () => {
    const run = startDigestRun(files, { threads: 3, chunkSize: 1024 });
    // ask in reverse claim order, so heads are taken out of turn while the workers run
    const heads = files.map((_, i) => files.length - 1 - i).map((i) => [i, run.head(i)] as const);
    for (const [i, head] of heads) assert.deepEqual(Buffer.from(head!), readFileSync(files[i].abs).subarray(0, HEAD_BYTES), files[i].abs);
    const digests = await run.finish();
    assert.deepEqual(digests, files.map((f) => ({ sha256: sha(readFileSync(f.abs)), size: f.size })));
  });

  it('reads the head of a file above the hash-on-demand size directly and leaves the file to the queue', () => {
    const small = files.findIndex((f) => f.size === 3000);
    const big = files.findIndex((f) => f.size === 200_000);
    const job = createHashJob(files.map((f) => f.abs), files.map((_, i) => i), 1024, files.map((f) => f.size));
    assert.deepEqual(Buffer.from(headOf(job, big, 64 * 1024).head!), readFileSync(files[big].abs).subarray(0, HEAD_BYTES));
    assert.equal(Atomics.load(job.ctrl, DONE), 0, 'the large file was not hashed for its head');
    assert.deepEqual(Buffer.from(headOf(job, small, 64 * 1024).head!), readFileSync(files[small].abs).subarray(0, HEAD_BYTES));
    assert.equal(Atomics.load(job.ctrl, DONE), 1, 'a small file is hashed when its head is asked for');
    assert.equal(hashClaimedFiles(job), null);
    assert.equal(Atomics.load(job.ctrl, DONE), files.length, 'every file hashed exactly once');
    const hex = (i: number) => Buffer.from(job.digests.subarray(i * 32, i * 32 + 32)).toString('hex');
    assert.deepEqual(files.map((_, i) => hex(i)), files.map((f) => sha(readFileSync(f.abs))));
  });

  it('gives no head for a file that vanished, and finish() names it', async () => {
    rmSync(files[4].abs);
    const run = startDigestRun(files, { threads: 1 });
    assert.equal(run.head(4), undefined);
    await assert.rejects(run.finish(), (e: unknown) => isSfError(e, 'SF_E_IO') && e.message.includes(files[4].abs));
  });

  it('validates the same with heads from the hashing as with its own reads', async () => {
    writeFileSync(join(dir.path, 'README.md'), '---\nskit: 1\nid: acme/heads\nversion: 1.0.0\nskills:\n  - name: tool\n    path: skills/tool\n---\n# Heads\n');
    mkdirSync(join(dir.path, 'skills', 'tool'), { recursive: true });
    writeFileSync(join(dir.path, 'skills', 'tool', 'SKILL.md'), '---\nname: tool\ndescription: Runs a tool.\n---\nRun it.\n');
    // a script without the exec bit: only its first bytes say it is executable (undeclared: an error)
    writeFileSync(join(dir.path, 'skills', 'tool', 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(dir.path, 'skills', 'tool', 'run.sh'), 0o644);
    const early = startTreeDigests(dir.path, { threads: 2 });
    const viaHashing = validateSkitDirSync(dir.path, { tree: early.tree!, readHead: (f) => early.headFor(f) });
    const ownReads = validateSkitDirSync(dir.path);
    assert.deepEqual(viaHashing, ownReads);
    assert.ok(ownReads.diagnostics.some((d) => d.severity === 'error' && d.file === 'skills/tool/run.sh'), JSON.stringify(ownReads.diagnostics));
    early.cancel();
  });

  it('adopts workers started at process start instead of starting new ones', async () => {
    const worker = spawnHashWorker();
    worker.unref();
    const ended = new Promise<Error | null>((resolve) => {
      worker.once('error', resolve);
      worker.once('exit', () => resolve(null));
    });
    offerEarlyHashWorkers([{ worker, ended }]);
    const workers = prestartHashWorkers(1);
    assert.equal(takeEarlyHashWorkers(4).length, 0, 'the early worker was handed over once');
    const digests = await startDigestRun(files, { workers }).finish();
    assert.deepEqual(digests.map((d) => d.sha256), files.map((f) => sha(readFileSync(f.abs))));
    assert.equal(await ended, null, 'the adopted worker ran the job and exited');
  });

  it('stops early workers nobody takes', async () => {
    const spare = [spawnHashWorker(), spawnHashWorker()].map((worker) => ({ worker, ended: new Promise<Error | null>((resolve) => worker.once('exit', () => resolve(null))) }));
    offerEarlyHashWorkers(spare);
    assert.equal(takeEarlyHashWorkers(0).length, 0);
    assert.deepEqual(await Promise.all(spare.map((s) => s.ended)), [null, null]);
  });
});
