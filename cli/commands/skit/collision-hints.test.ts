import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { commitTree, git, initRepo, skillMd } from '../../../test-support/git.js';
import { writeTree } from '../../../test-support/index.js';
import { installSandbox, kitTree, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * What a refused install says about the installation in its way: its scope (and project), a
 * command that works from where the user is, and the update that keeps settings when the "other"
 * SKIT is the same repository at another ref.
 */
describe('sf add skit: a skill directory another installation owns', () => {
  let sb: InstallSandbox;
  let elsewhere: string;
  beforeEach(async () => {
    sb = await installSandbox('sf-collide-');
    elsewhere = join(sb.root, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
  });
  afterEach(() => sb.cleanup());

  it('refuses --scope project in the home directory: its skill directories are the user scope\'s', async () => {
    const r = await sb.sf(['add', 'skit', sb.source, '--scope', 'project', '--agent', 'claude-code', '--yes'], { cwd: sb.home });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /SF_E_USAGE/);
    assert.match(r.stderr, /home directory/);
    assert.match(r.stderr, /--scope user/);
    assert.equal(existsSync(join(sb.home, '.claude')), false, 'nothing was written into the user\'s Claude Code directory');
    assert.deepEqual(await sb.list(), []);
  });

  it('names the owner\'s project, and its remove command works from anywhere', async () => {
    const other = join(sb.root, 'other');
    await writeTree(other, { ...kitTree('two', ['review']), 'README.md': kitTree('two', ['review'])['README.md'].replace('id: acme/kit', 'id: acme/other') });
    assert.equal((await sb.sf(['add', 'skit', other, '--agent', 'windsurf', '--yes'])).code, 0);
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes']);
    assert.equal(r.code, 4, r.stderr);
    assert.ok(r.stderr.includes(`belongs to acme/other, installed in project ${sb.project} for windsurf`), r.stderr);
    const command = /`(sf skit remove acme\/other [^`]+)`/.exec(r.stderr)?.[1];
    assert.equal(command, `sf skit remove acme/other --project ${sb.project}`);
    const removed = await sb.sf(command!.split(' ').slice(1), { cwd: elsewhere });
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'])).code, 0);
  });

  it('one SKIT whose user scope is this project\'s skill directory (CLAUDE_CONFIG_DIR) is not "two SKITs", and the hint names --scope user', async () => {
    const env = { CLAUDE_CONFIG_DIR: join(sb.project, '.claude') };
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--scope', 'user', '--agent', 'claude-code', '--yes'], { env })).code, 0);
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'], { env });
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /belongs to acme\/kit, installed in the user scope for claude-code, which uses this skill directory too/);
    assert.doesNotMatch(r.stderr, /two SKITs/);
    assert.match(r.stderr, /`sf skit remove acme\/kit --scope user`/);
  });

  it('the same skills-only repository at another ref: the hint is the update that keeps the settings, and it works', async () => {
    const repo = join(sb.root, 'repo');
    await mkdir(repo, { recursive: true });
    initRepo(repo);
    await commitTree(repo, { 'skills/foo/SKILL.md': skillMd('foo'), 'skills/bar/SKILL.md': skillMd('bar') }, 'v1');
    git(repo, ['tag', 'v1']);
    await commitTree(repo, { 'skills/foo/SKILL.md': `${skillMd('foo')}\nv2\n` }, 'v2');
    git(repo, ['tag', 'v2']);
    const add = await sb.sf(['add', 'skit', `file://${repo}#v1`, '--agent', 'claude-code', '--yes', '--json']);
    assert.equal(add.code, 0, add.stderr);
    const id = (JSON.parse(add.stdout) as { skit: { skitId: string } }).skit.skitId;
    assert.equal((await sb.sf(['skit', 'disable', `${id}:bar`])).code, 0);

    const again = await sb.sf(['add', 'skit', `file://${repo}#v2`, '--agent', 'claude-code', '--yes']);
    assert.equal(again.code, 4, again.stderr);
    assert.match(again.stderr, /SF_E_NAME_COLLISION/);
    const command = /`(sf skit update [^`]+)`/.exec(again.stderr)?.[1];
    assert.equal(command, `sf skit update ${id} --version v2`, again.stderr);
    assert.doesNotMatch(again.stderr, /remove .* first/);

    const updated = await sb.sf(command!.split(' ').slice(1));
    assert.equal(updated.code, 0, updated.stderr);
    const [rec] = await sb.list();
    assert.equal(rec.skitId, id);
    assert.deepEqual(rec.enabled[`${id}:bar`], { 'claude-code': false }, 'the disable was kept');
  });
});
