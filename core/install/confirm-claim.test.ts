import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin } from '../../test-support/index.js';
import { installSandbox, realAdapters, type InstallSandbox } from '../../test-support/skit-install.js';
import { sessionFrom } from './context.js';
import { installSkit } from './install-op.js';
import type { Plan } from './plan-types.js';

/**
 * `sf add skit` asks before it changes anything, and a person may take minutes to answer: the
 * library is not claimed while the prompt waits (every other sf mutation, in any project, would
 * wait for it). Under the claim the plan is made again, and only the plan that was answered goes
 * ahead; if it changed meanwhile, the new one is asked about.
 */
describe('install confirmation and the library claim', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-confirm-claim-')));
  afterEach(() => sb.cleanup());

  /** Another sf process, run to its end while the prompt waits (the prompt's process is blocked meanwhile). */
  const otherSf = (args: string[], cwd = sb.project) => spawnSync(process.execPath, [sfBin, ...args], { cwd, env: { ...process.env, ...sb.env, NO_COLOR: '1', SF_LIBRARY_WAIT: '0' }, encoding: 'utf8' });
  const install = (confirm: (plan: Plan) => Promise<boolean>) =>
    installSkit(sessionFrom({ ...process.env, ...sb.env }, sb.project, realAdapters()), { source: sb.source, agents: [realAdapters().get('claude-code')], confirm });

  it('other sf commands run while the prompt waits for an answer', async () => {
    const elsewhere = join(sb.root, 'elsewhere');
    await mkdir(join(elsewhere, '.git'), { recursive: true });
    let other: ReturnType<typeof otherSf> | undefined;
    const result = await install(async () => {
      other = otherSf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], elsewhere);
      return true;
    });
    assert.equal(other?.status, 0, other?.stderr);
    assert.equal(result.changed, true);
    assert.equal((await sb.list()).length, 2);
  });

  it('asks again when what it would do changed before the claim, and installs what it asked about last', async () => {
    const asked: Plan[] = [];
    const result = await install(async (plan) => {
      asked.push(plan);
      // meanwhile another command installs the same SKIT for another agent here
      if (asked.length === 1) assert.equal(otherSf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes']).status, 0);
      return true;
    });
    assert.equal(asked.length, 2);
    assert.equal(asked[0].before, null);
    assert.deepEqual(asked[1].before?.targets.map((t) => t.agent), ['windsurf']);
    assert.equal(result.changed, true);
    assert.deepEqual(result.record?.targets.map((t) => t.agent).sort(), ['claude-code', 'windsurf']);
  });

  it('says nothing more when the change made meanwhile leaves nothing to do', async () => {
    let asked = 0;
    const result = await install(async () => {
      asked++;
      assert.equal(otherSf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes']).status, 0);
      return true;
    });
    assert.equal(asked, 1);
    assert.deepEqual([result.changed, result.cancelled], [false, false]);
    const doctor = await sb.sf(['skit', 'doctor', '--json']);
    assert.equal(doctor.code, 0, doctor.stdout);
  });
});
