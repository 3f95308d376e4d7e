import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { Library } from '../library/db.js';
import { sfPaths } from '../library/paths.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../test-support/index.js';
import { installSandbox, kitTree, type InstallSandbox } from '../../test-support/skit-install.js';

describe('journal: one mutation at a time, interrupted ones recovered', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox()));
  afterEach(() => sb.cleanup());

  const claimAs = async (pid: number, startedAt = new Date().toISOString()) => {
    const lib = (await Library.open(sfPaths({ SF_HOME: sb.sfHome }), { create: true }))!;
    lib.commit({ putIntent: { schema: 1, id: `held-${pid}`, op: 'install', pid, startedAt, phase: 'planning' } });
    await lib.close();
  };

  const release = async (pid: number) => {
    const lib = (await Library.open(sfPaths({ SF_HOME: sb.sfHome }), { create: true }))!;
    lib.commit({ deleteIntent: `held-${pid}` });
    await lib.close();
  };

  it('refuses to run while another live sf process holds the library, at once with SF_LIBRARY_WAIT=0', async () => {
    await claimAs(process.pid);
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_LIBRARY_WAIT: '0' } });
    assert.equal(r.code, 4);
    assert.match(r.stderr, /SF_E_CONFLICT/);
    assert.match(r.stderr, new RegExp(`pid ${process.pid}`));
    assert.match(r.stderr, /SF_LIBRARY_WAIT/);
    assert.deepEqual(await sb.list(), []);
  });

  it('waits for the other command to finish (like npm and pnpm with their locks), then runs', async () => {
    await claimAs(process.pid);
    const started = Date.now();
    const running = sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_LIBRARY_WAIT: '30' } });
    await new Promise((r) => setTimeout(r, 600));
    await release(process.pid);
    const r = await running;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started >= 600);
    assert.equal((await sb.list()).length, 1);
  });

  it('gives up after SF_LIBRARY_WAIT seconds, and rejects a value that is not a number of seconds', async () => {
    await claimAs(process.pid);
    const started = Date.now();
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_LIBRARY_WAIT: '1' } });
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /did not finish within 1 s/);
    assert.ok(Date.now() - started >= 1000);
    const bad = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_LIBRARY_WAIT: 'soon' } });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /SF_E_USAGE\]: SF_LIBRARY_WAIT must be a number of seconds/);
    // hexadecimal and other forms Number() would take are not seconds
    for (const value of ['0x10', '1e3', 'Infinity']) {
      const odd = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_LIBRARY_WAIT: value } });
      assert.equal(odd.code, 2, `${value}: ${odd.stderr}`);
    }
  });

  it('lets two installs started together both succeed, one after the other', async () => {
    const second = join(sb.root, 'kit2');
    await writeTree(second, kitTree('one', ['alpha', 'beta']));
    const readme = join(second, 'README.md');
    await writeFile(readme, (await readFile(readme, 'utf8')).replace('id: acme/kit', 'id: acme/kit2'));
    const [a, b] = await Promise.all([
      sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes']),
      sb.sf(['add', 'skit', second, '--agent', 'windsurf', '--yes']),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual((await sb.list()).map((r) => r.skitId).sort(), ['acme/kit', 'acme/kit2']);
  });

  it('takes over when the recorded pid now belongs to a process that started later (pid reuse after a crash and reboot)', async () => {
    const stranger = spawn('sleep', ['30']);
    try {
      await new Promise((r) => setTimeout(r, 50));
      await claimAs(stranger.pid!, new Date(Date.now() - 3_600_000).toISOString());
      const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], { env: { SF_LIBRARY_WAIT: '0' } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal((await sb.list()).length, 1);
      const doctor = await sb.sf(['skit', 'doctor', '--json']);
      assert.equal(doctor.code, 0, doctor.stdout);
    } finally {
      stranger.kill();
    }
  });

  it('takes over from a process that died before it changed anything', async () => {
    await claimAs(2 ** 22 + 12345);
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await sb.list()).length, 1);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stdout);
  });
});
