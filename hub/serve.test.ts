import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isSfError } from '../core/errors/index.js';
import { encodeOtlpRequest } from '../core/telemetry/otlp/index.js';
import { logBatches } from '../bench/telemetry-batches.js';
import { sfBin, tempDir } from '../test-support/index.js';
import { issueToken } from './auth/tokens.js';
import { startHub } from './serve.js';
import type { HubStorage } from './storage/ports.js';
import { TelemetryService, type TelemetryConfig } from './telemetry/service.js';

describe('startHub: close', () => {
  it('resolves while the normalizer thread has just been handed a batch (its thread is ended, not waited for)', async function () {
    this.timeout(20_000);
    const dir = await tempDir('sf-hub-close-');
    try {
      for (let round = 0; round < 3; round++) {
        const hub = await startHub({ dataDir: dir.path });
        const user = hub.storage.accounts.findOwner('closer') ?? hub.storage.accounts.createUser('closer', false);
        const token = issueToken(hub.storage.tokens, { userId: user.id, kind: 'device', name: `d${round}`, scopes: ['telemetry:write'] }).secret;
        const body = await encodeOtlpRequest([...logBatches({ size: 8, batches: 1, seed: round, repositoryFingerprint: 'rfp_close' })][0], 'protobuf');
        const res = await fetch(`${hub.url}/v1/logs`, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        const closed = await Promise.race([hub.close().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 5_000).unref())]);
        assert.ok(closed, `round ${round}: hub.close() still pending after 5 s`);
      }
    } finally {
      await dir.cleanup();
    }
  });
});

describe('startHub: one hub per data directory', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (tmp = await tempDir('sf-hub-lock-')));
  afterEach(() => tmp.cleanup());

  it('refuses a second hub on the same directory in the same process, and starts again once the first is closed', async function () {
    this.timeout(20_000);
    const first = await startHub({ dataDir: tmp.path });
    try {
      await assert.rejects(startHub({ dataDir: tmp.path }), (e) => isSfError(e, 'SF_E_CONFLICT') && e.message.includes(tmp.path) && e.message.includes(`pid ${process.pid}`));
      const elsewhere = await startHub({ dataDir: join(tmp.path, 'other') });
      await elsewhere.close();
    } finally {
      await first.close();
    }
    const again = await startHub({ dataDir: tmp.path });
    assert.equal((await fetch(`${again.url}/healthz`)).status, 200);
    await again.close();
  });

  it('a start that fails in telemetry leaves nothing open: storage closed, lock released', async function () {
    this.timeout(20_000);
    let opened: HubStorage | undefined;
    const failing = (storage: HubStorage, defaults: TelemetryConfig) => {
      opened = storage;
      const service = new TelemetryService(storage, defaults);
      service.start = () => Promise.reject(new Error('normalizer would not boot'));
      return service;
    };
    await assert.rejects(startHub({ dataDir: tmp.path, telemetry: failing }), /normalizer would not boot/);
    // a closed store refuses reads; an open one (leaked, with its LMDB environment) answers them
    assert.throws(() => opened!.registry.listSkits());
    const again = await startHub({ dataDir: tmp.path });
    await again.close();
  });
});

interface ServedHub {
  child: ChildProcess;
  /** stdout and stderr so far */
  output: () => string;
  /** resolves once it listens (its URL) or exits (undefined) */
  started: Promise<string | undefined>;
  exited: Promise<number | null>;
}

/** `sf hub serve` of the built CLI on a free port, `umask 0` so the lock files' modes owe nothing to it. */
function serveHub(data: string, home: string): ServedHub {
  const env = { HOME: home, SF_HOME: join(home, '.sf'), NO_COLOR: '1', PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
  const child = spawn('/bin/sh', ['-c', 'umask 0 && exec "$0" "$@"', process.execPath, sfBin, 'hub', 'serve', '--port', '0', '--data', data], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<string | undefined>((resolve) => {
    const seen = (d: Buffer) => {
      output += d;
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    void exited.then(() => resolve(undefined));
  });
  return { child, output: () => output, started, exited };
}

describe('sf hub serve: one hub process per data directory (built CLI)', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  const hubs: ServedHub[] = [];
  beforeEach(async () => (tmp = await tempDir('sf-hub-serve-lock-')));
  afterEach(async () => {
    for (const h of hubs.splice(0)) if (h.child.exitCode === null && h.child.signalCode === null) {
      h.child.kill('SIGKILL');
      await h.exited;
    }
    await tmp.cleanup();
  });
  const serve = (data: string) => {
    const hub = serveHub(data, tmp.path);
    hubs.push(hub);
    return hub;
  };

  it('refuses a second hub on the same --data, naming the directory and the running pid; a hub on another --data runs beside it', async () => {
    const data = join(tmp.path, 'hub-data');
    const first = serve(data);
    const url = await first.started;
    assert.ok(url, first.output());
    const second = serve(data);
    assert.equal(await second.started, undefined, `a second hub listens on the same data: ${second.output()}`);
    assert.equal(await second.exited, 4, second.output());
    assert.match(second.output(), /error\[SF_E_CONFLICT\]/);
    assert.ok(second.output().includes(data), second.output());
    assert.ok(second.output().includes(`pid ${first.child.pid}`), second.output());
    assert.match(second.output(), /hint: .*--data/);
    assert.equal((await fetch(`${url}/healthz`)).status, 200, 'the first hub still serves');
    const other = serve(join(tmp.path, 'other-data'));
    assert.ok(await other.started, other.output());
    assert.equal(first.child.exitCode, null);
  });

  it('makes its lock files owner-only whatever the umask, and releases them on SIGTERM', async () => {
    const data = join(tmp.path, 'hub-data');
    const hub = serve(data);
    assert.ok(await hub.started, hub.output());
    const lockFiles = (await readdir(data)).filter((n) => n.startsWith('hub.pid'));
    assert.ok(lockFiles.includes('hub.pid') && lockFiles.includes('hub.pid.lmdb'), lockFiles.join(', '));
    for (const name of lockFiles) assert.equal((await stat(join(data, name))).mode & 0o777, 0o600, name);
    hub.child.kill('SIGTERM');
    assert.equal(await hub.exited, 0, hub.output());
    assert.ok(!(await readdir(data)).includes('hub.pid'), 'the pid file goes with the hub');
  });

  it('starts after a hub on the same --data was killed with SIGKILL (its lock is stale, not held)', async () => {
    const data = join(tmp.path, 'hub-data');
    const victim = serve(data);
    assert.ok(await victim.started, victim.output());
    victim.child.kill('SIGKILL');
    await victim.exited;
    const next = serve(data);
    const url = await next.started;
    assert.ok(url, next.output());
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
  });
});
