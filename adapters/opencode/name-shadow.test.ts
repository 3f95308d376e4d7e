import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { sfBin, writeTree } from '../../test-support/index.js';
import { installSandbox, skillMarkdown, type InstallSandbox } from '../../test-support/skit-install.js';
import { traceProcess } from '../../test-support/syscalls.js';

describe('opencode name shadows: a change scans the roots OpenCode reads once', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-opencode-shadow-')));
  afterEach(() => sb.cleanup());

  it('sf skit disable reads each root once (for its warnings), not again in its preflight and config reconcile, and still warns', async () => {
    const mine = join(sb.home, '.agents', 'skills', 'my-review');
    await writeTree(mine, { 'SKILL.md': skillMarkdown('review') });
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'opencode', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    const root = join(sb.home, '.agents', 'skills');
    const calls = await traceProcess(process.execPath, [sfBin, 'skit', 'disable', 'acme/kit:review', '--json'], { cwd: sb.project, env: { ...process.env, ...sb.env }, trace: 'openat' });
    assert.equal(calls.filter((c) => c.call === 'openat' && c.args.includes(`"${root}"`)).length, 1);
    const again = await sb.sf(['skit', 'enable', 'acme/kit:review', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const shadows = (JSON.parse(again.stdout) as { diagnostics: { code: string; file?: string }[] }).diagnostics.filter((d) => d.code === 'SF_ADAPTER_NAME_SHADOW');
    assert.deepEqual(shadows.map((d) => d.file), [mine]);
  });
});
