import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runSf, sfBin, tempDir } from '../../../test-support/index.js';

describe('sf hub: the data directory', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let home: string;
  let cwd: string;
  beforeEach(async () => {
    tmp = await tempDir('sf-hub-data-');
    home = join(tmp.path, 'home');
    cwd = join(tmp.path, 'work');
    await mkdir(home, { recursive: true });
    await mkdir(cwd, { recursive: true });
  });
  afterEach(() => tmp.cleanup());

  const mode = async (path: string) => (await stat(path)).mode & 0o777;

  it('serve refuses --data on a kernel filesystem, with a hint about --data (not SF_HOME)', async () => {
    const r = await runSf(['hub', 'serve', '--port', '0', '--data', '/proc/sf-hub-data'], { cwd, env: { HOME: home } });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /SF_E_UNSAFE_PATH\]: the hub data directory at \/proc\/sf-hub-data is on the kernel's proc filesystem/);
    assert.match(r.stderr, /hint: .*sf hub serve --data <dir>/);
    assert.doesNotMatch(r.stderr, /SF_HOME/);
  });

  it('create-user defaults to $SF_HOME/hub (an empty SF_HOME means ~/.sf, never the current directory), created 0700', async () => {
    const r = await runSf(['hub', 'admin', 'create-user', 'alice', '--admin', '--json'], { cwd, env: { HOME: home, SF_HOME: '' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).user.login, 'alice');
    assert.deepEqual(await readdir(cwd), [], 'nothing is written into the current directory');
    assert.ok(existsSync(join(home, '.sf', 'hub', 'hub.lmdb')));
    assert.equal(await mode(join(home, '.sf')), 0o700);
    assert.equal(await mode(join(home, '.sf', 'hub')), 0o700);
  });

  it('create-user refuses a login the hub API would refuse (it could never publish), before creating anything', async () => {
    for (const login of ['../x', 'Bad Login', 'a/b', 'ALICE']) {
      const r = await runSf(['hub', 'admin', 'create-user', login, '--json', '--data', join(home, 'hubdata')], { cwd, env: { HOME: home } });
      assert.equal(r.code, 2, `${login}: ${r.stderr}`);
      assert.equal(JSON.parse(r.stderr).error.code, 'SF_E_USAGE');
    }
    assert.ok(!existsSync(join(home, 'hubdata')), 'no data directory was created');
  });

  it('serve creates a new --data directory 0700 and leaves the mode of an existing one alone', async () => {
    const serve = async (data: string) => {
      const child = spawn(process.execPath, [sfBin, 'hub', 'serve', '--port', '0', '--data', data], { cwd, env: { ...process.env, HOME: home } });
      try {
        const line = await new Promise<string>((resolve, reject) => {
          child.once('exit', (code) => reject(new Error(`sf hub serve exited (${code})`)));
          createInterface({ input: child.stdout! }).once('line', resolve);
        });
        assert.match(line, /forge hub listening on http:\/\/127\.0\.0\.1:\d+ \(data: /);
      } finally {
        child.removeAllListeners('exit');
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    };
    await serve(join(tmp.path, 'srv', 'hub-data'));
    assert.equal(await mode(join(tmp.path, 'srv', 'hub-data')), 0o700);
    assert.equal(await mode(join(tmp.path, 'srv')), 0o700);
    const shared = join(tmp.path, 'shared');
    await mkdir(shared, { mode: 0o750 });
    await serve(shared);
    assert.equal(await mode(shared), 0o750);
    assert.ok(existsSync(join(shared, 'hub.lmdb')));
  });
});
