import { strict as assert } from 'node:assert';
import { Library } from '../library/db.js';
import { sfPaths } from '../library/paths.js';
import { installSandbox, type InstallSandbox } from '../../test-support/skit-install.js';

describe('journal: one mutation at a time, interrupted ones recovered', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox()));
  afterEach(() => sb.cleanup());

  const claimAs = async (pid: number) => {
    const lib = (await Library.open(sfPaths({ SF_HOME: sb.sfHome }), { create: true }))!;
    lib.commit({ putIntent: { schema: 1, id: `held-${pid}`, op: 'install', pid, startedAt: '2026-01-01T00:00:00.000Z', phase: 'planning' } });
    await lib.close();
  };

  it('refuses to run while another live sf process holds the library', async () => {
    await claimAs(process.pid);
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes']);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /SF_E_CONFLICT/);
    assert.match(r.stderr, new RegExp(`pid ${process.pid}`));
    assert.deepEqual(await sb.list(), []);
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
