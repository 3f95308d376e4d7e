import { strict as assert } from 'node:assert';
import { getAdapter, allAdapters } from '../../../adapters/index.js';
import { isSfError, SfError } from '../../../core/errors/index.js';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';
import { sessionFrom } from '../../../core/install/context.js';
import { installSkit } from '../../../core/install/install-op.js';

describe('install confirmation', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-confirm-')));
  afterEach(() => sb.cleanup());

  const install = (confirm: () => Promise<boolean>) =>
    installSkit(sessionFrom({ ...process.env, ...sb.env }, sb.project, { get: getAdapter, all: allAdapters }), { source: sb.source, agents: [getAdapter('claude-code')], confirm });

  it('a prompt broken off (Ctrl-C, end of input) changes nothing and leaves no interrupted command behind', async () => {
    await assert.rejects(install(async () => {
      throw new SfError('SF_E_USAGE', 'cancelled; nothing was changed', { hint: 'answer y' });
    }), (e) => isSfError(e, 'SF_E_USAGE'));
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stdout);
    assert.doesNotMatch(doctor.stdout, /SF_DRIFT_INTERRUPTED/);
    assert.deepEqual(await sb.list(), []);
  });

  it('answering no cancels cleanly too, and yes installs', async () => {
    const no = await install(async () => false);
    assert.deepEqual([no.cancelled, no.changed], [true, false]);
    assert.equal((await sb.sf(['skit', 'doctor', '--json'])).code, 0);
    const yes = await install(async () => true);
    assert.equal(yes.changed, true);
    assert.equal((await sb.list()).length, 1);
  });
});
