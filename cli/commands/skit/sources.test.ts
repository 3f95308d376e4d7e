import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTree } from '../../../test-support/index.js';
import { serveRoutes, startServer, type TestServer } from '../../../test-support/http-server.js';
import { installSandbox, skillMarkdown, type InstallSandbox } from '../../../test-support/skit-install.js';

/**
 * `sf add skit` from each kind of source that holds Agent Skills without a SKIT README: the
 * resolver tests check what a source resolves to, these check that the install of it succeeds.
 */
describe('sf add skit from Agent Skills without a SKIT README (built CLI)', () => {
  let sb: InstallSandbox;
  let server: TestServer | undefined;
  beforeEach(async () => {
    sb = await installSandbox('sf-sources-');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await sb.cleanup();
  });

  const skillRoot = () => join(sb.project, '.windsurf', 'skills');

  async function installs(source: string, skills: string[]): Promise<void> {
    const r = await sb.sf(['add', 'skit', source, '--agent', 'windsurf', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    for (const s of skills) assert.match(await readFile(join(skillRoot(), s, 'SKILL.md'), 'utf8'), new RegExp(`name: ${s}`));
    const [record] = await sb.list();
    assert.match(record.skitId, /^provisional\/[0-9a-f]{16}$/);
    assert.deepEqual(record.skills.map((s) => s.name).sort(), [...skills].sort());
  }

  it('a directory with a SKILL.md at its root (local-skill)', async () => {
    const dir = join(sb.root, 'alpha');
    await writeTree(dir, { 'SKILL.md': skillMarkdown('alpha'), 'scripts/run.sh': '#!/bin/sh\n' });
    await installs(dir, ['alpha']);
    assert.equal((await sb.list())[0].source.kind, 'local-skill');
  });

  it('a .tgz whose root is one skill, local and over http', async () => {
    const dir = join(sb.root, 'beta');
    await writeTree(dir, { 'SKILL.md': skillMarkdown('beta'), 'references/notes.md': '# notes\n' });
    const archive = join(sb.root, 'beta.tgz');
    execFileSync('tar', ['czf', archive, '-C', dir, 'SKILL.md', 'references']);
    await installs(archive, ['beta']);
    assert.equal((await sb.sf(['skit', 'remove', (await sb.list())[0].skitId])).code, 0);
    server = await serveRoutes({ '/beta.tgz': { headers: { 'content-type': 'application/gzip' }, body: await readFile(archive) } });
    await installs(`${server.origin}/beta.tgz`, ['beta']);
  });

  async function gitRepo(name: string, tree: Record<string, string>): Promise<string> {
    const repo = join(sb.root, name);
    await writeTree(repo, tree);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', name);
    return repo;
  }

  it('a git repository whose subpath, or whose root, is one skill (file:// through the system git)', async () => {
    const repo = await gitRepo('repo', { 'kits/gamma/SKILL.md': skillMarkdown('gamma'), 'README.md': '# not a SKIT\n' });
    await installs(`file://${repo}#main:kits/gamma`, ['gamma']);
    assert.equal((await sb.sf(['skit', 'remove', (await sb.list())[0].skitId])).code, 0);
    // the clone's directory is named by sf, not by the skill: its name is not checked
    const root = await gitRepo('delta-skill', { 'SKILL.md': skillMarkdown('delta') });
    await installs(`file://${root}`, ['delta']);
  });

  it('a directory of skills/<name> (a synthesized descriptor)', async () => {
    const dir = join(sb.root, 'many');
    await writeTree(dir, { 'skills/one/SKILL.md': skillMarkdown('one'), 'skills/two/SKILL.md': skillMarkdown('two') });
    await installs(dir, ['one', 'two']);
  });

  it('a path that is not there is SF_E_NOT_FOUND, even when no agent is detected', async () => {
    const r = await sb.sf(['add', 'skit', join(sb.root, 'missing'), '--yes', '--json']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(JSON.parse(r.stderr).error.code, 'SF_E_NOT_FOUND');
  });

  it('update --version moves a git install that names a ref, and doctor --fix refetches its commit (or says why not)', async () => {
    const repo = await gitRepo('tagged', { 'skills/eps/SKILL.md': skillMarkdown('eps', 'v1') });
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' });
    git('tag', 'v1');
    await writeTree(repo, { 'skills/eps/SKILL.md': skillMarkdown('eps', 'v2') });
    git('commit', '-qam', 'v2');
    git('tag', 'v2');
    await installs(`file://${repo}#v1`, ['eps']);
    const id = (await sb.list())[0].skitId;
    const moved = await sb.sf(['skit', 'update', id, '--version', 'v2']);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(await readFile(join(skillRoot(), 'eps', 'SKILL.md'), 'utf8'), /v2/);
    assert.equal((await sb.list())[0].source.canonical, `file://${repo}#v2`);

    const store = join(sb.sfHome, 'store');
    const wipe = async () => {
      for (const name of await readdir(store)) if (!name.startsWith('.')) await rm(join(store, name), { recursive: true });
    };
    await wipe();
    const fixed = await sb.sf(['skit', 'doctor', '--fix']);
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    assert.match(await readFile(join(skillRoot(), 'eps', 'SKILL.md'), 'utf8'), /v2/);

    await rename(repo, `${repo}-moved`);
    await wipe();
    const failed = await sb.sf(['skit', 'doctor', '--fix', '--json']);
    assert.equal(failed.code, 1);
    const why = (JSON.parse(failed.stdout) as { findings: { code: string; message: string }[] }).findings.find((f) => f.code === 'SF_DOCTOR_FIX_FAILED');
    assert.match(why?.message ?? '', /could not restore the store entry of /, failed.stdout);
  });

  it('a download URL keeps its query, so update fetches the same file; another file behind the same path is refused, not swapped in', async () => {
    const archives: Record<string, Buffer> = {};
    for (const name of ['xone', 'ytwo']) {
      const dir = join(sb.root, name);
      await writeTree(dir, { 'SKILL.md': skillMarkdown(name) });
      execFileSync('tar', ['czf', join(sb.root, `${name}.tgz`), '-C', dir, 'SKILL.md']);
      archives[`${name}.tgz`] = await readFile(join(sb.root, `${name}.tgz`));
    }
    server = await startServer((req, res) => {
      const file = new URL(req.url ?? '/', 'http://x').searchParams.get('f') ?? '';
      if (!archives[file]) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(archives[file]);
    });
    await installs(`${server.origin}/download?f=xone.tgz&token=s3cr3t`, ['xone']);
    assert.equal((await sb.list())[0].source.canonical, `${server.origin}/download?f=xone.tgz`, 'the query is kept, the token is not');
    const update = await sb.sf(['skit', 'update']);
    assert.equal(update.code, 0, update.stderr);
    // the same provisional id (a query is not part of it), so the second file is refused, not swapped in
    const r = await sb.sf(['add', 'skit', `${server.origin}/download?f=ytwo.tgz`, '--agent', 'windsurf', '--yes']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /SF_E_CONFLICT.*has the provisional id of/);
    assert.deepEqual((await sb.list()).map((l) => l.skills.map((s) => s.name)), [['xone']]);
  });

  it('update of a local source that moved says so, and how to go on', async () => {
    const dir = join(sb.root, 'zeta');
    await writeTree(dir, { 'SKILL.md': skillMarkdown('zeta') });
    await installs(dir, ['zeta']);
    await rename(dir, `${dir}-moved`);
    const r = await sb.sf(['skit', 'update']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /the recorded source of provisional\/[0-9a-f]+, .*zeta, is gone\n  hint: if it moved: sf skit update provisional\/[0-9a-f]+ --source <new path> \(keeps its enable\/disable settings\)/);
  });

  it('update of a source given through a symbolic link follows the link to where it points now', async () => {
    await writeTree(join(sb.root, 'kits', 'v1'), { 'skills/theta/SKILL.md': skillMarkdown('theta') });
    await writeTree(join(sb.root, 'kits', 'v2'), { 'skills/theta/SKILL.md': `${skillMarkdown('theta')}\nVersion two.\n` });
    const link = join(sb.root, 'kits', 'current');
    await symlink('v1', link);
    await installs(link, ['theta']);
    const [before] = await sb.list();
    assert.equal(before.source.canonical, link, 'the path as given is recorded, not where it pointed');
    await rm(link);
    await symlink('v2', link);
    const r = await sb.sf(['skit', 'update', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { action: string }[])[0].action, 'updated');
    assert.match(await readFile(join(skillRoot(), 'theta', 'SKILL.md'), 'utf8'), /Version two/);
    const after = await sb.list();
    assert.equal(after.length, 1);
    assert.notEqual(after[0].bundleHash, before.bundleHash);
    // the link's new target is another provisional identity: the id is kept, the new one an alias
    assert.equal(after[0].skitId, before.skitId);
    assert.deepEqual(after[0].skills.map((k) => k.id), [`${before.skitId}:theta`]);
  });

  it('a new commit that leaves the SKIT tree as it was moves the record and says so, with an inventory event', async () => {
    const repo = await gitRepo('monorepo', { 'kit/skills/eta/SKILL.md': skillMarkdown('eta'), NOTES: 'one\n' });
    await installs(`file://${repo}#main:kit`, ['eta']);
    const outboxLines = async () => (await readFile(join(sb.sfHome, 'queue', 'outbox.jsonl'), 'utf8')).trim().split('\n');
    const before = (await outboxLines()).length;
    await writeTree(repo, { NOTES: 'two\n' });
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'notes'], { stdio: 'pipe' });
    const head = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const r = await sb.sf(['skit', 'update', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const [outcome] = JSON.parse(r.stdout) as { action: string; notes: string[]; skit: { release: { commit: string } } }[];
    assert.equal(outcome.action, 'updated');
    assert.equal(outcome.skit.release.commit, head);
    assert.ok(outcome.notes.some((n) => /the source moved to main@.*its skills are unchanged/.test(n)), JSON.stringify(outcome.notes));
    assert.ok(!outcome.notes.some((n) => /up to date/.test(n)));
    const lines = await outboxLines();
    assert.equal(lines.length, before + 1);
    assert.ok(lines[lines.length - 1].includes(head), 'the event names the new commit');
  });

  it('a single-skill source whose skill is renamed keeps the skill disabled under its new name, and says so', async () => {
    const dir = join(sb.root, 'pdf');
    const archive = join(sb.root, 'pdf.tgz');
    const pack = async (name: string) => {
      await rm(dir, { recursive: true, force: true });
      await writeTree(dir, { 'SKILL.md': skillMarkdown(name) });
      execFileSync('tar', ['czf', archive, '-C', dir, 'SKILL.md']);
    };
    await pack('pdf-tools');
    await installs(archive, ['pdf-tools']);
    const id = (await sb.list())[0].skitId;
    assert.equal((await sb.sf(['skit', 'disable', `${id}:pdf-tools`])).code, 0);
    await pack('pdf-suite');
    const r = await sb.sf(['skit', 'update', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const [outcome] = JSON.parse(r.stdout) as { notes: string[] }[];
    assert.ok(outcome.notes.some((n) => /pdf-tools is now called pdf-suite/.test(n)), JSON.stringify(outcome.notes));
    assert.deepEqual((await sb.list())[0].enabled[`${id}:pdf-suite`], { windsurf: false });
    await assert.rejects(readFile(join(skillRoot(), 'pdf-suite', 'SKILL.md')), 'a disabled skill is not projected for windsurf');
  });
});
