import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { processStartMs, stillRunningSince } from '../runtime/processes.js';
import { tempDir } from '../../test-support/index.js';
import { startObserverDaemon } from '../../test-support/observer-daemon.js';
import { waitFor } from '../../test-support/otlp-sink.js';
import { acquirePidLock, runningHolder } from './lock.js';

describe('observer pid lock: a reused pid is not a running observer', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let other: ChildProcess;
  beforeEach(async () => {
    tmp = await tempDir('sf-pid-lock-');
    other = spawn('sleep', ['30']);
    await new Promise((r) => setTimeout(r, 50));
  });
  afterEach(async () => {
    other.kill();
    await tmp.cleanup();
  });

  it('knows when a process started, to within a second, and whether it started after a record', () => {
    const started = processStartMs(other.pid!);
    assert.ok(started !== undefined && Math.abs(Date.now() - started) < 5_000, String(started));
    assert.equal(stillRunningSince(other.pid!, Date.now()), true);
    assert.equal(stillRunningSince(other.pid!, Date.now() - 3_600_000), false, 'started after a record an hour old');
    assert.equal(stillRunningSince(2 ** 22 + 12345, Date.now()), false, 'no such pid');
  });

  it('replaces a pid file whose pid now belongs to a process that started after it was written', async () => {
    const file = join(tmp.path, 'run', 'observe.pid');
    await acquirePidLock(file).then((l) => l.release());
    await writeFile(file, `${other.pid}\n`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(file, hourAgo, hourAgo);
    assert.equal(await runningHolder(file), undefined);
    const lock = await acquirePidLock(file);
    assert.equal((await readFile(file, 'utf8')).trim(), String(process.pid));
    await lock.release();
  });

  it('still refuses while the recorded process has been running since the file was written', async () => {
    const file = join(tmp.path, 'observe.pid');
    await writeFile(file, `${other.pid}\n`);
    assert.equal(await runningHolder(file), other.pid);
    await assert.rejects(acquirePidLock(file), (e) => isSfError(e, 'SF_E_CONFLICT') && e.message.includes(`pid ${other.pid}`));
  });
});

describe('observer pid lock: two real daemons started at once (built CLI)', function () {
  this.timeout(180_000);

  const start = startObserverDaemon;

  it('lets exactly one run, round after round, over a stale pid file and over none', async () => {
    const tmp = await tempDir('sf-pid-race-');
    try {
      for (let round = 0; round < 30; round++) {
        const home = join(tmp.path, `home${round}`);
        await mkdir(join(home, 'run'), { recursive: true });
        // even rounds: what a crash leaves (a pid no process has); odd rounds: no pid file at all
        if (round % 2 === 0) await writeFile(join(home, 'run', 'observe.pid'), `${2 ** 22 + 12345}\n`);
        const daemons = [start(home), start(home)];
        try {
          // each either listens or exits (refused): wait until both have decided
          await waitFor(() => daemons.every((d) => d.output().includes('listening on') || d.child.exitCode !== null), 60_000, `round ${round}: both daemons to start or refuse`);
          const running = daemons.filter((d) => d.child.exitCode === null);
          assert.equal(running.length, 1, `round ${round}: ${daemons.map((d) => d.output().trim()).join(' | ')}`);
          const refused = daemons.find((d) => d.child.exitCode !== null)!;
          assert.equal(refused.child.exitCode, 4, refused.output());
          assert.match(refused.output(), /already running for this user/);
          running[0].child.kill('SIGTERM');
          assert.equal(await running[0].exited, 0);
        } finally {
          for (const d of daemons) if (d.child.exitCode === null) d.child.kill('SIGKILL');
        }
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
