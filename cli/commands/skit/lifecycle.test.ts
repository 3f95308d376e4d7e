import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../../test-support/index.js';
import { commitTree, git, initRepo } from '../../../test-support/git.js';
import { installSandbox, kitTree, rootContents, skillMarkdown, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * An installation over time, with the built CLI: sources that move or are claimed by another
 * place, whole-scope updates with failures, choices that outlive a release's defaults, local
 * edits, downgrades.
 */
describe('sf over the life of an installation (built CLI)', () => {
  let sb: InstallSandbox;
  beforeEach(async () => (sb = await installSandbox('sf-lifecycle-')));
  afterEach(() => sb.cleanup());

  const windsurf = () => join(sb.project, '.windsurf', 'skills');
  const add = (source: string, ...more: string[]) => sb.sf(['add', 'skit', source, '--agent', 'windsurf', '--yes', ...more]);
  const ok = (r: { code: number; stdout: string; stderr: string }, what: string) => assert.equal(r.code, 0, `${what}: ${r.stdout}${r.stderr}`);
  /** The kit's README with `review` off by default. */
  const reviewOffByDefault = async (dir: string) => {
    const readme = join(dir, 'README.md');
    await writeFile(readme, (await readFile(readme, 'utf8')).replace('default_enabled: true', 'default_enabled: false'));
  };

  it('a provisional install whose directory moved is re-pointed with update --source, keeping its disabled skill (D3)', async () => {
    const dir = join(sb.root, 'myskills');
    await writeTree(dir, { 'skills/foo/SKILL.md': skillMarkdown('foo'), 'skills/bar/SKILL.md': skillMarkdown('bar') });
    ok(await add(dir), 'add');
    const [{ skitId: id }] = await sb.list();
    ok(await sb.sf(['skit', 'disable', `${id}:foo`]), 'disable');
    await rename(dir, join(sb.root, 'my-skills'));
    const gone = await sb.sf(['skit', 'update']);
    assert.equal(gone.code, 3, gone.stderr);
    assert.ok(gone.stderr.includes(`hint: if it moved: sf skit update ${id} --source <new path> (keeps its enable/disable settings)`), gone.stderr);

    const moved = await sb.sf(['skit', 'update', id, '--source', join(sb.root, 'my-skills')]);
    ok(moved, 'update --source');
    assert.match(moved.stdout, /its source changed from .*myskills \(local directory\) to .*my-skills \(local directory\); no skill was removed/);
    const [after] = await sb.list();
    assert.equal(after.skitId, id, 'the id is kept');
    assert.equal(after.source.canonical, join(sb.root, 'my-skills'));
    assert.equal(after.enabled[`${id}:foo`].windsurf, false, 'the disabled skill stays disabled');
    assert.deepEqual(Object.keys(await rootContents(windsurf())), ['bar']);
    ok(await sb.sf(['skit', 'update']), 'a later update reads the new place');
  });

  it('sf add skit of another directory claiming an installed id is refused, and replaces it only with --force, saying what went (D5)', async () => {
    ok(await add(sb.source), 'add acme/kit');
    const other = join(sb.root, 'other');
    await writeTree(other, kitTree('other', ['xreview']));
    const refused = await add(other);
    assert.equal(refused.code, 4, refused.stderr);
    assert.ok(refused.stderr.includes(`error[SF_E_CONFLICT]: ${other} (local directory) says it is acme/kit, which is installed here from another source, ${sb.source} (local directory)`), refused.stderr);
    assert.ok(refused.stderr.includes(`sf skit update acme/kit --source ${other}`), refused.stderr);
    assert.deepEqual(Object.keys(await rootContents(windsurf())), ['lint', 'review', 'summarize'], 'nothing changed');

    const forced = await add(other, '--force', '--json');
    ok(forced, 'add --force');
    const { notes } = JSON.parse(forced.stdout) as { notes: string[] };
    assert.ok(notes.includes(`acme/kit: its source changed from ${sb.source} (local directory) to ${other} (local directory); removed acme/kit:review, acme/kit:summarize, acme/kit:lint, which the new source does not have`), JSON.stringify(notes));
    assert.deepEqual(Object.keys(await rootContents(windsurf())), ['xreview']);
  });

  it('--version and --source need one SKIT id (D6)', async () => {
    ok(await add(sb.source), 'add');
    for (const args of [['--version', 'v1'], ['--all', '--version', 'v1'], ['--source', sb.source]]) {
      const r = await sb.sf(['skit', 'update', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`error\\[SF_E_USAGE\\]: ${args[args.length - 2]} needs one SKIT id\\n  hint: sf skit update <owner/name> ${args[args.length - 2]}`));
    }
  });

  it('update of a whole scope with failures prints a summary and exits with the highest code of the failures; a gone archive is "gone" (D7)', async () => {
    // acme/kit (a directory) has an update; acme/packed's archive is deleted; acme/edited was edited through its link
    ok(await add(sb.source), 'add acme/kit');
    const packed = join(sb.root, 'packed');
    await writeTree(packed, kitTree('packed', ['pone']));
    await writeFile(join(packed, 'README.md'), (await readFile(join(packed, 'README.md'), 'utf8')).replace('id: acme/kit', 'id: acme/packed'));
    execFileSync('tar', ['czf', join(sb.root, 'packed.tgz'), '-C', packed, '.']);
    ok(await add(join(sb.root, 'packed.tgz')), 'add acme/packed');
    const edited = join(sb.root, 'edited');
    await writeTree(edited, kitTree('edited', ['eone']));
    await writeFile(join(edited, 'README.md'), (await readFile(join(edited, 'README.md'), 'utf8')).replace('id: acme/kit', 'id: acme/edited'));
    ok(await add(edited), 'add acme/edited');

    await writeTree(sb.source, { 'skills/review/SKILL.md': skillMarkdown('review', 'two') });
    await rm(join(sb.root, 'packed.tgz'));
    await writeFile(join(windsurf(), 'eone', 'SKILL.md'), 'my edit\n');
    await writeTree(edited, { 'skills/eone/SKILL.md': skillMarkdown('eone', 'two') });

    const r = await sb.sf(['skit', 'update']);
    assert.equal(r.code, 4, `SF_E_NOT_FOUND (3) and SF_E_MODIFIED (4): the highest\n${r.stderr}`);
    assert.match(r.stdout, /updated acme\/kit /);
    assert.match(r.stdout, /\n1 updated, 0 unchanged, 2 failed\n$/);
    assert.ok(r.stderr.includes(`error[SF_E_NOT_FOUND]: the recorded source of acme/packed, ${join(sb.root, 'packed.tgz')}, is gone\n  hint: if it moved: sf skit update acme/packed --source <new path>`), r.stderr);
    assert.match(r.stderr, /error\[SF_E_MODIFIED\]/);
    const json = await sb.sf(['skit', 'update', '--json']);
    assert.equal(json.code, 4, json.stderr);
    const actions = Object.fromEntries((JSON.parse(json.stdout) as { skitId: string; action: string }[]).map((o) => [o.skitId, o.action]));
    assert.deepEqual(actions, { 'acme/kit': 'unchanged', 'acme/packed': 'failed', 'acme/edited': 'failed' });
    // one failure alone exits with its own code, as among others
    ok(await sb.sf(['skit', 'remove', 'acme/edited', '--force']), 'remove');
    assert.equal((await sb.sf(['skit', 'update'])).code, 3);
  });

  it('an explicit enable outlives a release that turns the skill off by default; without one, the update says so (D10)', async () => {
    ok(await add(sb.source), 'add');
    const enable = await sb.sf(['skit', 'enable', 'acme/kit:review', '--json']);
    ok(enable, 'enable');
    assert.equal(JSON.parse(enable.stdout).action, 'unchanged');
    await reviewOffByDefault(sb.source);
    const r = await sb.sf(['skit', 'update', '--json']);
    ok(r, 'update');
    const [outcome] = JSON.parse(r.stdout) as { notes: string[]; skit: { enabled: Record<string, Record<string, boolean>> } }[];
    assert.equal(outcome.skit.enabled['acme/kit:review'].windsurf, true);
    assert.ok(!outcome.notes.some((n) => /by default/.test(n)), JSON.stringify(outcome.notes));

    // another project, no choice made: the flip is named, with the way back
    const other = join(sb.root, 'proj2');
    await writeTree(other, { '.git/HEAD': 'ref: refs/heads/main\n' });
    const fresh = join(sb.root, 'kit2');
    await writeTree(fresh, kitTree());
    ok(await sb.sf(['add', 'skit', fresh, '--agent', 'windsurf', '--yes'], { cwd: other }), 'add in proj2');
    await reviewOffByDefault(fresh);
    const flipped = await sb.sf(['skit', 'update'], { cwd: other });
    ok(flipped, 'update in proj2');
    assert.ok(flipped.stdout.includes('acme/kit:review is now off by default, so it was disabled; `sf skit enable acme/kit:review` turns it on again and keeps it so'), flipped.stdout);
  });

  describe('copies (SF_PROJECTION_MODE=copy)', () => {
    const copies = { env: { SF_PROJECTION_MODE: 'copy' } };

    it('update --force backs the edited copy up under backups/edits and says where (O3)', async () => {
      ok(await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], copies), 'add');
      await writeFile(join(windsurf(), 'review', 'SKILL.md'), 'MY WORK\n');
      await writeFile(join(windsurf(), 'review', 'NOTES.md'), 'my notes\n');
      await writeTree(sb.source, { 'skills/review/SKILL.md': skillMarkdown('review', 'two') });
      assert.equal((await sb.sf(['skit', 'update'], copies)).code, 4);
      const r = await sb.sf(['skit', 'update', '--force', '--json'], copies);
      ok(r, 'update --force');
      const [{ notes }] = JSON.parse(r.stdout) as { notes: string[] }[];
      const note = notes.find((n) => n.startsWith('acme/kit: --force replaced skill directories with local edits; they were copied first to '));
      assert.ok(note, JSON.stringify(notes));
      const backups = join(sb.sfHome, 'backups', 'edits');
      const [dir] = await readdir(backups);
      assert.ok(note.includes(join(backups, dir)) && note.includes(`${join(windsurf(), 'review')} (NOTES.md, SKILL.md)`), note);
      assert.equal(await readFile(join(backups, dir, 'windsurf', 'review', 'SKILL.md'), 'utf8'), 'MY WORK\n');
      assert.equal(await readFile(join(backups, dir, 'windsurf', 'review', 'NOTES.md'), 'utf8'), 'my notes\n');
      assert.match(await readFile(join(windsurf(), 'review', 'SKILL.md'), 'utf8'), /two/);
    });

    it('update leaves an edited copy of a skill the release does not change, and updates the rest (O5)', async () => {
      ok(await sb.sf(['add', 'skit', sb.source, '--agent', 'windsurf', '--yes'], copies), 'add');
      await writeFile(join(windsurf(), 'summarize', 'NOTES.md'), 'my notes\n');
      await writeTree(sb.source, { 'skills/review/SKILL.md': skillMarkdown('review', 'two') });
      const r = await sb.sf(['skit', 'update'], copies);
      ok(r, 'update');
      assert.ok(r.stdout.includes(`acme/kit:summarize (windsurf): kept your edited copy ${join(windsurf(), 'summarize')}; this release does not change the skill`), r.stdout);
      assert.equal(await readFile(join(windsurf(), 'summarize', 'NOTES.md'), 'utf8'), 'my notes\n');
      assert.match(await readFile(join(windsurf(), 'review', 'SKILL.md'), 'utf8'), /two/);
    });
  });

  it('a move to an older tag is reported as a downgrade (text and --json); nothing to do is "up to date" (O8)', async () => {
    const repo = join(sb.root, 'repo');
    await writeTree(repo, kitTree('one'));
    initRepo(repo);
    await commitTree(repo, {}, 'one');
    git(repo, ['tag', 'v1']);
    await commitTree(repo, { 'skills/review/SKILL.md': skillMarkdown('review', 'two') }, 'two');
    git(repo, ['tag', 'v2']);
    ok(await add(`file://${repo}#v2`), 'add v2');
    const down = await sb.sf(['skit', 'update', 'acme/kit', '--version', 'v1']);
    ok(down, 'update --version v1');
    assert.match(down.stdout, /^downgraded acme\/kit v1@[0-9a-f]{12} \(project /m);
    const up = await sb.sf(['skit', 'update', 'acme/kit', '--version', 'v2', '--json']);
    ok(up, 'update --version v2');
    assert.equal(JSON.parse(up.stdout)[0].downgraded, undefined);
    const again = await sb.sf(['skit', 'update', 'acme/kit', '--version', 'v1', '--json']);
    const [outcome] = JSON.parse(again.stdout) as { action: string; downgraded: unknown }[];
    assert.equal(outcome.action, 'updated');
    assert.deepEqual(outcome.downgraded, { from: 'v2', to: 'v1' });
    const idle = await sb.sf(['skit', 'update', 'acme/kit']);
    assert.match(idle.stdout, /^acme\/kit is up to date \(v1@[0-9a-f]{12}\)$/m);
    // sf add skit of the older tag says it too
    ok(await add(`file://${repo}#v2`), 'add v2 again');
    assert.match((await add(`file://${repo}#v1`)).stdout, /^downgraded acme\/kit v1@/m);
  });
});
