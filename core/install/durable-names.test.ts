import { strict as assert } from 'node:assert';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sfBin } from '../../test-support/index.js';
import { installSandbox, skillMarkdown, type InstallSandbox } from '../../test-support/skit-install.js';
import { namesNotMadeDurable, traceProcess } from '../../test-support/syscalls.js';

/**
 * What a power cut right after a command reported success could take back: every directory,
 * store entry and skill link an install, update or remove creates or moves must have its
 * directory fsynced before the command ends. Read from the real system calls (strace).
 */
describe('install, update and remove leave durable names', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-durable-')));
  afterEach(() => sb.cleanup());

  // temp files, a staged store entry's own name, trash being deleted, projection temp dirs and the
  // short edit locks beside config files are scratch: only their renames count (what is inside a
  // staged entry is not: it becomes the entry); a lock lost to a power cut is simply not there
  const scratch = (p: string) => /\/\.staging(\/[^/]+)?$|\/\.staging\/trash-|\/\.sf-tmp(\/|$)|\.tmp$|\.sf-lock(\.\d+\.[0-9a-f]+)?$/.test(p);
  const traced = (...args: string[]) => traceProcess(process.execPath, [sfBin, ...args], { cwd: sb.project, env: { ...process.env, ...sb.env } });

  it('sf add skit into a fresh $SF_HOME and project, then update, disable and remove', async () => {
    const add = await traced('add', 'skit', sb.source, '--agent', 'claude-code,codex', '--yes');
    assert.deepEqual(namesNotMadeDurable(add, scratch), []);
    // the names it had to make durable include the new $SF_HOME, store entry and skill roots
    const made = add.filter((c) => c.call === 'mkdir' && c.result === 0).map((c) => /"([^"]+)"/.exec(c.args)![1]);
    for (const dir of [sb.sfHome, join(sb.project, '.claude', 'skills'), join(sb.project, '.agents', 'skills')]) assert.ok(made.includes(dir), `${dir} created`);

    await writeFile(join(sb.source, 'skills', 'lint', 'SKILL.md'), skillMarkdown('lint', 'two'));
    assert.deepEqual(namesNotMadeDurable(await traced('skit', 'update', 'acme/kit'), scratch), []);
    // the first per-skill switch writes Codex's config (and a new ~/.codex) and a backup-free Claude settings file
    assert.deepEqual(namesNotMadeDurable(await traced('skit', 'disable', 'acme/kit:lint'), scratch), []);
    assert.deepEqual(namesNotMadeDurable(await traced('skit', 'remove', 'acme/kit'), scratch), []);
  });
});
