import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants, openSync, closeSync, readSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { runCanary } from './canary.js';
import { appendToFileDestination } from './delivery.js';
import { DEFAULT_FILE_ROTATION } from './file-rotation.js';
import { ensureDirectory, fileAttempt } from './file-write.js';

const linux = process.platform === 'linux';

describe('observer file destinations: directories, deadlines, messages', function () {
  this.timeout(20_000);

  it('a directory /proc will not take fails at once with the path (recursive mkdir never settles there on Node 20)', async function () {
    if (!linux) this.skip();
    const started = Date.now();
    await assert.rejects(ensureDirectory('/proc/sf-nope/deeper'), (e: Error) => {
      assert.match(e.message, /the directory \/proc\/sf-nope cannot be created: \/proc exists but does not take new directories \(ENOENT/);
      return true;
    });
    await assert.rejects(fileAttempt('/proc/sf-nope/x.jsonl', () => appendToFileDestination('/proc/sf-nope/x.jsonl', '{}')), /\/proc\/sf-nope cannot be created/);
    assert.ok(Date.now() - started < 2000);
    const canary = await runCanary({ kind: 'file', name: 'bad', type: 'file', path: '/proc/sf-nope/x.jsonl', rotation: DEFAULT_FILE_ROTATION });
    assert.equal(canary.ok, false);
    assert.match(canary.error ?? '', /\/proc\/sf-nope cannot be created/);
  });

  it('names the path and what the errno means: a parent that is a file, a directory in its place, no permission', async () => {
    const tmp = await tempDir('sf-file-write-');
    try {
      const plain = join(tmp.path, 'plainfile');
      await writeFile(plain, 'x\n');
      const under = join(plain, 'out.jsonl');
      await assert.rejects(fileAttempt(under, () => appendToFileDestination(under, '{}')), (e: Error) => {
        assert.equal(e.message, `${plain} is not a directory, so ${under} cannot be created in it (ENOTDIR)`);
        return true;
      });
      const deeper = join(plain, 'a', 'b', 'out.jsonl');
      await assert.rejects(fileAttempt(deeper, () => appendToFileDestination(deeper, '{}')), new RegExp(`: ${plain.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a directory`));
      const dir = join(tmp.path, 'adir');
      await mkdir(dir);
      await assert.rejects(fileAttempt(dir, () => appendToFileDestination(dir, '{}')), /adir is a directory; a file destination needs a file path \(EISDIR\)/);
      const canary = await runCanary({ kind: 'file', name: 'bad', type: 'file', path: under, rotation: DEFAULT_FILE_ROTATION });
      assert.match(canary.error ?? '', /plainfile is not a directory/);
      if (process.getuid?.() !== 0) {
        const locked = join(tmp.path, 'locked');
        await mkdir(locked, { mode: 0o500 });
        await assert.rejects(fileAttempt(join(locked, 'sub', 'x.jsonl'), () => appendToFileDestination(join(locked, 'sub', 'x.jsonl'), '{}')), /permission denied: cannot create the directory .*locked\/sub \(EACCES\)/);
        await chmod(locked, 0o700);
      }
      // and a path that works gets its directories and the line
      const ok = join(tmp.path, 'new', 'deep', 'x.jsonl');
      await fileAttempt(ok, () => appendToFileDestination(ok, '{"a":1}'));
      assert.equal(await readFile(ok, 'utf8'), '{"a":1}\n');
    } finally {
      await tmp.cleanup();
    }
  });

  it('a FIFO nobody reads fails at once (no thread held in open(2)); with a reader it takes the lines', async function () {
    if (process.platform === 'win32') this.skip();
    const tmp = await tempDir('sf-file-fifo-');
    const fifo = join(tmp.path, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    let reader: number | undefined;
    try {
      const t0 = Date.now();
      await assert.rejects(fileAttempt(fifo, () => appendToFileDestination(fifo, '{"a":1}')), (e: Error) => {
        assert.equal(e.message, `${fifo} is a pipe no process reads (ENXIO)`);
        return true;
      });
      assert.ok(Date.now() - t0 < 1000);
      reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      await fileAttempt(fifo, () => appendToFileDestination(fifo, '{"b":2}'));
      const buf = Buffer.alloc(64);
      assert.equal(buf.subarray(0, readSync(reader, buf)).toString(), '{"b":2}\n');
    } finally {
      if (reader !== undefined) closeSync(reader);
      await tmp.cleanup();
    }
  });

  it('an attempt that hangs fails on its deadline; the path gets no new attempt until it returns; abort ends the wait at once', async () => {
    const path = `/nonexistent/sf-hang-${process.pid}.jsonl`;
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    const t0 = Date.now();
    await assert.rejects(fileAttempt(path, () => hung, { timeoutMs: 200 }), (e: Error) => {
      assert.equal(e.message, `writing ${path} did not finish within 0 s (a hung mount, or a pipe nobody reads?)`);
      return true;
    });
    assert.ok(Date.now() - t0 < 1000);
    let ran = false;
    await assert.rejects(fileAttempt(path, async () => void (ran = true)), /an earlier write to .* has not returned for \d+ s .*no new attempt until it does/);
    assert.equal(ran, false, 'no second attempt joins a stuck one');
    release();
    await hung;
    await new Promise((r) => setImmediate(r));
    assert.equal(await fileAttempt(path, async () => 'done'), 'done', 'the path takes attempts again once the stuck one returned');

    const stop = new AbortController();
    const pending = fileAttempt(path, () => new Promise<void>(() => undefined), { abort: stop.signal, timeoutMs: 60_000 });
    setTimeout(() => stop.abort(), 50);
    const t1 = Date.now();
    await assert.rejects(pending, new RegExp(`the write to ${path} was cut short: the observer is stopping`));
    assert.ok(Date.now() - t1 < 1000);
  });
});
