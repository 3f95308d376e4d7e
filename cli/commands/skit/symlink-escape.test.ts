import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installSandbox, rootContents, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * A project is not trusted to choose where Forge writes: a cloned repository can ship its agent
 * directories as symbolic links to anywhere (`.claude/skills -> ~/.ssh`). Project-scope installs
 * refuse skill directories and config files that a link carries out of the project, and change
 * nothing; links that stay inside the project work as before.
 */
describe('sf add skit / sf skit disable: symbolic links out of the project', () => {
  let sb: InstallSandbox;
  let outside: string;
  beforeEach(async () => {
    sb = await installSandbox('sf-symlink-escape-');
    outside = join(sb.root, 'outside');
    await mkdir(outside);
    await mkdir(join(sb.project, '.claude'), { recursive: true });
  });
  afterEach(() => sb.cleanup());

  it('refuses a skill directory linked out of the project before anything changes', async () => {
    await symlink(outside, join(sb.project, '.claude', 'skills'));
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code,windsurf', '--yes']);
    assert.equal(add.code, 5, add.stderr);
    assert.match(add.stderr, /error\[SF_E_UNSAFE_PATH\]: the Claude Code skill directory .*\.claude\/skills leads out of the project .* through a symbolic link/);
    assert.match(add.stderr, /hint: replace the link/);
    assert.deepEqual(await readdir(outside), []);
    assert.deepEqual(await sb.list(), []);
  });

  it('installs through a link that stays inside the project', async () => {
    await mkdir(join(sb.project, 'agent-skills'));
    await symlink('../agent-skills', join(sb.project, '.claude', 'skills'));
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(Object.keys(await rootContents(join(sb.project, 'agent-skills'))), ['lint', 'review', 'summarize']);
  });

  it('refuses to edit a project config file linked to a file outside, leaving that file and the installation as they were', async () => {
    const add = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes']);
    assert.equal(add.code, 0, add.stderr);
    const before = await sb.list();
    const userSettings = join(outside, 'settings.json');
    await writeFile(userSettings, '{ "model": "opus" }\n');
    await symlink(userSettings, join(sb.project, '.claude', 'settings.local.json'));
    const disable = await sb.sf(['skit', 'disable', 'acme/kit:review']);
    assert.equal(disable.code, 5, disable.stderr);
    assert.match(disable.stderr, /SF_E_UNSAFE_PATH.*the Claude Code config file .*settings\.local\.json leads out of the project/);
    assert.equal(await readFile(userSettings, 'utf8'), '{ "model": "opus" }\n');
    assert.deepEqual(await sb.list(), before);
    assert.deepEqual(Object.keys(await rootContents(join(sb.project, '.claude', 'skills'))), ['lint', 'review', 'summarize']);
  });
});
