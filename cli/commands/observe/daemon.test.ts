import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { updateObserveConfig } from '../../../core/observer/config.js';
import { sendObserverMessage } from '../../../core/observer/socket-client.js';
import { fixturesDir, runSf, tempDir } from '../../../test-support/index.js';
import { startObserverDaemon } from '../../../test-support/observer-daemon.js';
import { waitFor } from '../../../test-support/otlp-sink.js';
import { freePort, startObserverDaemon as startDaemon, waitFor as waitUntil } from '../../../test-support/hosts/observe.js';

/** `sf observe daemon` as a child process of the built CLI. */

describe('sf observe daemon (built CLI, child process)', function () {
  this.timeout(60_000);

  it('runs in the foreground, serves the socket and receiver, refuses a second instance, stops cleanly on SIGTERM', async () => {
    const tmp = await tempDir('sf-daemon-');
    const home = join(tmp.path, 'home');
    const file = join(tmp.path, 'telemetry.jsonl');
    await updateObserveConfig(join(home, 'config.json'), (o) => ({ ...o, destinations: [{ name: 'local', type: 'file', path: file }], batch: { maxRecords: 100, delayMs: 20 } }));
    const d = startObserverDaemon(home);
    try {
      await waitFor(() => d.output().includes('listening on'), 30_000, 'the daemon to start');
      const runtime = JSON.parse(await readFile(join(home, 'run', 'observe.json'), 'utf8')) as { url: string; socket: string; pid: number };
      assert.equal(runtime.pid, d.child.pid);
      assert.deepEqual(await sendObserverMessage(runtime.socket, { type: 'ping', id: 7 }, 5000), { ok: true, id: 7, version: '0.1.0', pid: d.child.pid });
      const res = await fetch(`${runtime.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await readFile(join(fixturesDir, 'host-otlp', 'claude-tool-details', 'logs.json')) });
      assert.equal(res.status, 200);
      await waitFor(async () => (await readFile(file, 'utf8').catch(() => '')).includes('agent.skill.loaded'), 20_000, 'normalized events in the file');

      const second = await runSf(['observe', 'daemon', '--sf-home', home, '--port', '0']);
      assert.equal(second.code, 4, second.stderr);
      assert.match(second.stderr, /already running for this user \(pid \d+\)/);

      d.child.kill('SIGTERM');
      assert.equal(await d.exited, 0);
      assert.match(d.output(), /sf observer stopped/);
      assert.ok(!existsSync(join(home, 'run', 'observe.pid')), 'the pid lock is released');
      assert.ok(!existsSync(join(home, 'run', 'observe.sock')), 'the socket is removed');
      const status = JSON.parse(await readFile(join(home, 'run', 'observe.status.json'), 'utf8')) as { destinations: { name: string; delivered: number }[] };
      assert.ok(status.destinations[0].delivered >= 3);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await tmp.cleanup();
    }
  });

  it('a file destination that cannot work (a directory /proc refuses, a FIFO nobody reads) fails with its path in status and doctor, and SIGTERM still stops the observer at once', async function () {
    if (process.platform !== 'linux') this.skip();
    const tmp = await tempDir('sf-daemon-filebad-');
    const home = join(tmp.path, 'sf');
    const fifo = join(tmp.path, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const port = await freePort();
    await updateObserveConfig(join(home, 'config.json'), (o) => ({ ...o, receiver: { port }, batch: { maxRecords: 100, delayMs: 20 },
      destinations: [{ name: 'proc', type: 'file', path: '/proc/sf-nope/x.jsonl' }, { name: 'pipe', type: 'file', path: fifo }] }));
    const env = { HOME: join(tmp.path, 'home'), SF_HOME: home };
    const d = await startDaemon(env);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await readFile(join(fixturesDir, 'host-otlp', 'claude-tool-details', 'logs.json')) });
      assert.equal(res.status, 200);
      type Dest = { name: string; problem?: string; state?: string };
      const status = await waitUntil('both destinations reported failing', async () => {
        const s = JSON.parse((await runSf(['observe', 'status', '--json'], { env })).stdout) as { destinations: Dest[] };
        return s.destinations.every((x) => x.problem) ? s : undefined;
      }, 30_000);
      const byName = (n: string) => status.destinations.find((x) => x.name === n)!;
      assert.match(byName('proc').problem!, /the directory \/proc\/sf-nope cannot be created: \/proc exists but does not take new directories/);
      assert.match(byName('pipe').problem!, /pipe\.jsonl is a pipe no process reads \(ENXIO\)/);
      const doctor = await runSf(['observe', 'doctor', '--json'], { env });
      assert.equal(doctor.code, 1);
      const down = (JSON.parse(doctor.stdout) as { diagnostics: { code: string; message: string; hint?: string }[] }).diagnostics.filter((x) => x.code === 'SF_OBSERVE_DESTINATION_DOWN');
      assert.equal(down.length, 2, doctor.stdout);
      for (const x of down) assert.match(x.hint ?? '', /choose another path: `sf observe destination add (proc|pipe) file:<path>`/);
      assert.ok(!down.some((x) => /credential/.test(x.hint ?? '')), 'no endpoint/credential hint for a file');

      const t0 = Date.now();
      assert.equal(await d.stop(), 0, d.output());
      assert.ok(Date.now() - t0 < 5000, `stopped after ${Date.now() - t0} ms`);
      assert.match(d.output(), /sf observer stopped/);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await tmp.cleanup();
    }
  });
});
