import { strict as assert } from 'node:assert';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getAdapter, allAdapters } from '../../../adapters/index.js';
import { isSfError, SfError } from '../../../core/errors/index.js';
import { installSandbox, skillMarkdown, type InstallSandbox } from '../../../test-support/skit-install.js';
import { writeTree } from '../../../test-support/index.js';
import { sessionFrom } from '../../../core/install/context.js';
import { installSkit } from '../../../core/install/install-op.js';

describe('install confirmation', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-confirm-')));
  afterEach(() => sb.cleanup());

  const install = (confirm: () => Promise<boolean>, options: { env?: Record<string, string>; force?: boolean } = {}) =>
    installSkit(sessionFrom({ ...process.env, ...sb.env, ...options.env }, sb.project, { get: getAdapter, all: allAdapters }), { source: sb.source, agents: [getAdapter('claude-code')], confirm, force: options.force });

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

  it('a forced install over an edited copy backs the edit up only once the prompt is answered yes', async () => {
    const copies = { env: { SF_PROJECTION_MODE: 'copy' } };
    assert.equal((await install(async () => true, copies)).changed, true);
    await writeFile(join(sb.project, '.claude', 'skills', 'review', 'SKILL.md'), 'MY WORK\n');
    await writeTree(sb.source, { 'skills/review/SKILL.md': skillMarkdown('review', 'two') });
    const backups = join(sb.sfHome, 'backups', 'edits');
    const no = await install(async () => false, { ...copies, force: true });
    assert.equal(no.cancelled, true);
    assert.deepEqual(await readdir(backups).catch(() => []), [], 'declined: no backup');
    const yes = await install(async () => true, { ...copies, force: true });
    assert.equal(yes.changed, true);
    assert.equal((await readdir(backups)).length, 1);
  });
});
