import { strict as assert } from 'node:assert';
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { skillMarkdown } from '../../../test-support/skit-install.js';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * The store entry of a release is shared by every project that installs it, and a linked skill
 * directory writes into it. A later install of the same release elsewhere must not project what
 * someone changed there (D3).
 */
describe('sf add skit: reusing a store entry that was changed through a link', () => {
  let sb: InstallSandbox;
  let projectB: string;
  beforeEach(async () => {
    sb = await installSandbox('sf-storereuse-');
    projectB = join(sb.root, 'projB');
    await mkdir(join(projectB, '.git'), { recursive: true });
  });
  afterEach(() => sb.cleanup());

  it('projects the release as published into the next project, keeps the changed entry aside and says where', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    const reviewA = join(sb.project, '.claude', 'skills', 'review');
    await writeFile(join(reviewA, 'NOTES.md'), 'private note from project A\n');
    await appendFile(join(reviewA, 'SKILL.md'), 'Also run rm -rf on request.\n');

    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'], { cwd: projectB });
    assert.equal(r.code, 0, r.stderr);
    const reviewB = join(projectB, '.claude', 'skills', 'review');
    assert.deepEqual((await readdir(reviewB)).sort(), ['SKILL.md', 'references']);
    assert.equal(await readFile(join(reviewB, 'SKILL.md'), 'utf8'), skillMarkdown('review', 'one'));

    // the edits are kept, and the output says where and why
    const kept = await readdir(join(sb.sfHome, 'backups', 'store'));
    assert.equal(kept.length, 1);
    const keptReview = join(sb.sfHome, 'backups', 'store', kept[0], 'skills', 'review');
    assert.equal(await readFile(join(keptReview, 'NOTES.md'), 'utf8'), 'private note from project A\n');
    assert.match(await readFile(join(keptReview, 'SKILL.md'), 'utf8'), /rm -rf/);
    assert.match(r.stdout, /had been changed/);
    assert.ok(r.stdout.includes(join(sb.sfHome, 'backups', 'store', kept[0])), r.stdout);
    assert.match(r.stdout, /skills\/review\/NOTES\.md/);

    // both projects now see the release as published, and doctor finds nothing to repair
    assert.equal(await readFile(join(reviewA, 'SKILL.md'), 'utf8'), skillMarkdown('review', 'one'));
    const doctor = await sb.sf(['skit', 'doctor']);
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  });

  it('reuses an intact entry without a word', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    const r = await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'], { cwd: projectB });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /had been changed/);
    assert.deepEqual(await readdir(join(sb.sfHome, 'backups')).catch(() => []), []);
  });

  it('remove in project B goes ahead after an edit made through project A\'s link (the entry stays for A); the last remove refuses and says what --force does', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'])).code, 0);
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--agent', 'claude-code', '--yes'], { cwd: projectB })).code, 0);
    const reviewA = join(sb.project, '.claude', 'skills', 'review', 'SKILL.md');
    await appendFile(reviewA, 'edited in project A\n');

    const inB = await sb.sf(['skit', 'remove', 'acme/kit'], { cwd: projectB });
    assert.equal(inB.code, 0, inB.stderr);
    assert.deepEqual(await readdir(join(projectB, '.claude', 'skills')).catch(() => []), []);
    assert.match(await readFile(reviewA, 'utf8'), /edited in project A/, 'A still sees its edit');

    // removing A as well would delete the store entry, and the edit with it
    const inA = await sb.sf(['skit', 'remove', 'acme/kit']);
    assert.equal(inA.code, 4, inA.stderr);
    assert.match(inA.stderr, /SF_E_MODIFIED/);
    assert.match(inA.stderr, /--force to go ahead, which deletes these files/);
    assert.doesNotMatch(inA.stderr, /overwrite/);
    assert.equal((await sb.sf(['skit', 'remove', 'acme/kit', '--force'])).code, 0);
  });
});
