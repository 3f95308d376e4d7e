import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isSfError, type Diagnostic } from '../errors/index.js';
import { tempDir, writeTree } from '../../test-support/index.js';
import { skillMd } from '../../test-support/git.js';
import { validateSkitDir } from '../skit/validate.js';
import { discoverLayout } from './discover.js';
import { resolveSource } from './index.js';

describe('core/sources Agent Skills discovery', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ path: root, cleanup } = await tempDir('sf-src-disc-')));
  afterEach(() => cleanup());

  it('finds skills in every guaranteed location, including skills/<category>/<name>', async () => {
    await writeTree(root, {
      'README.md': '# just a readme\n',
      'skills/alpha/SKILL.md': skillMd('alpha'),
      'skills/tools/beta/SKILL.md': skillMd('beta'),
      '.agents/skills/gamma/SKILL.md': skillMd('gamma'),
      '.claude/skills/delta/SKILL.md': skillMd('delta'),
      '.opencode/skills/epsilon/SKILL.md': skillMd('epsilon'),
      'other/zeta/SKILL.md': skillMd('zeta'),
      '.claude/skills/deep/nested/SKILL.md': skillMd('nested'),
    });
    const r = await resolveSource(root, { cwd: root, workDir: join(root, '.work') });
    assert.equal(r.kind, 'local-dir');
    assert.deepEqual(
      (r.descriptor?.skills ?? []).map((s) => `${s.name}@${s.path}`),
      ['alpha@skills/alpha', 'beta@skills/tools/beta', 'gamma@.agents/skills/gamma', 'delta@.claude/skills/delta', 'epsilon@.opencode/skills/epsilon'],
      'outside the guaranteed roots and deeper than one level in agent dirs is not discovered',
    );
    assert.equal(r.descriptor?.id, r.provisionalId);
    assert.ok(r.descriptor?.skills.every((s) => s.default_enabled === true));
  });

  it('never follows a symbolic link to read README.md, SKILL.md or a skills directory (/dev/zero, files outside the tree)', async function () {
    this.timeout(10_000);
    const outside = join(root, '..', `${root.split('/').pop()}-outside`);
    await writeTree(outside, { 'skills/secret/SKILL.md': skillMd('top-secret-name'), 'SKILL.md': skillMd('leaked') });
    try {
      await mkdir(join(root, 'skills', 'hello'), { recursive: true });
      await symlink('/dev/zero', join(root, 'README.md'));
      await symlink(join(outside, 'SKILL.md'), join(root, 'skills', 'hello', 'SKILL.md'));
      await symlink(outside, join(root, '.agents'));
      // returns at once (it used to read /dev/zero until memory ran out), reads nothing outside, and
      // names the link as validation would
      const codes = (l: ReturnType<typeof discoverLayout>) => (l.kind === 'skills' ? l.diagnostics.map((d) => `${d.code} ${d.file}`) : l.kind);
      assert.deepEqual(codes(discoverLayout(root)), ['SKIT_TREE_SYMLINK README.md']);
      await rm(join(root, 'README.md'));
      assert.deepEqual(codes(discoverLayout(root)), ['SKIT_TREE_SYMLINK skills/hello/SKILL.md']);
      await rm(join(root, 'skills'), { recursive: true });
      assert.deepEqual(discoverLayout(root), { kind: 'empty' }, 'a linked .agents directory is not followed');
      await mkdir(join(root, '.claude'));
      await symlink(outside, join(root, '.claude', 'skills'));
      assert.deepEqual(discoverLayout(root), { kind: 'empty' });
    } finally {
      await import('node:fs/promises').then((fs) => fs.rm(outside, { recursive: true, force: true }));
    }
  });

  it('uses the SKILL.md frontmatter name, not the directory name', async () => {
    await writeTree(root, { 'skills/dir-name/SKILL.md': skillMd('real-name') });
    const layout = discoverLayout(root);
    assert.deepEqual(layout.kind === 'skills' && layout.skills, [{ name: 'real-name', path: 'skills/dir-name' }]);
  });

  it('fails on a duplicate name with an error diagnostic naming both paths', async () => {
    await writeTree(root, { 'skills/review/SKILL.md': skillMd('review'), '.claude/skills/review/SKILL.md': skillMd('review') });
    await assert.rejects(resolveSource(root, { cwd: root, workDir: join(root, '.work') }), (e) => {
      assert.ok(isSfError(e, 'SF_E_VALIDATION'));
      const [d] = e.data?.diagnostics as Diagnostic[];
      assert.equal(d.code, 'SKIT_SKILL_NAME_DUPLICATE');
      assert.equal(d.severity, 'error');
      assert.match(d.message, /skills\/review\/SKILL\.md and \.claude\/skills\/review\/SKILL\.md/);
      assert.match(e.message, /\.claude\/skills\/review/);
      return true;
    });
  });

  it('fails on a SKILL.md without a name', async () => {
    await writeTree(root, { 'skills/x/SKILL.md': '# no frontmatter\n' });
    await assert.rejects(
      resolveSource(root, { cwd: root, workDir: join(root, '.work') }),
      (e) => isSfError(e, 'SF_E_VALIDATION') && (e.data?.diagnostics as Diagnostic[])[0].file === 'skills/x/SKILL.md',
    );
  });

  it('says why a SKILL.md frontmatter cannot be read (broken YAML, unclosed) instead of only "no name"', () => {
    const layout = (tree: Record<string, string>) => {
      const dir = join(root, String(Object.keys(tree).length), Math.random().toString(36).slice(2));
      return writeTree(dir, tree).then(() => discoverLayout(dir));
    };
    return Promise.all([
      layout({ 'skills/a/SKILL.md': '---\nname: [unclosed\n---\n' }),
      layout({ 'skills/b/SKILL.md': '---\nname: b\n' }),
      layout({ 'skills/c/SKILL.md': '---\ndescription: no name here\n---\n' }),
    ]).then(([broken, unclosed, nameless]) => {
      const message = (l: ReturnType<typeof discoverLayout>) => (l.kind === 'skills' ? l.diagnostics[0]?.message : undefined) ?? '';
      assert.match(message(broken), /skills\/a\/SKILL\.md has no readable frontmatter.*line \d+/);
      assert.match(message(unclosed), /not closed by a "---" line/);
      assert.match(message(nameless), /has no frontmatter "name"/);
    });
  });

  it('names a SKILL.md that is a symbolic link, FIFO or socket as validation does, not "no SKIT found"', async function () {
    this.timeout(10_000);
    const cases: [string, (at: string) => Promise<unknown>, string][] = [
      ['link', async (at) => symlink(join(root, 'elsewhere.md'), at), 'SKIT_TREE_SYMLINK'],
      ['fifo', async (at) => execFileSync('mkfifo', [at]), 'SKIT_TREE_SPECIAL_FILE'],
      ['socket', (at) => new Promise((resolve) => { const s = createServer().listen(at, () => resolve(s)); }).then((s) => (servers.push(s as ReturnType<typeof createServer>), s)), 'SKIT_TREE_SPECIAL_FILE'],
    ];
    const servers: ReturnType<typeof createServer>[] = [];
    await writeFile(join(root, 'elsewhere.md'), skillMd('elsewhere'));
    try {
      for (const [name, make, code] of cases) {
        const dir = join(root, name);
        await mkdir(dir);
        await make(join(dir, 'SKILL.md'));
        await assert.rejects(resolveSource(dir, { cwd: root, workDir: join(root, '.work') }), (e) => {
          assert.ok(isSfError(e, 'SF_E_VALIDATION'), `${name}: ${String(e)}`);
          assert.match(e.message, name === 'link' ? /SKILL\.md is a symbolic link: symbolic links are not allowed in a SKIT/ : /SKILL\.md is not a regular file/);
          assert.deepEqual((e.data?.diagnostics as Diagnostic[]).map((d) => d.code), [code]);
          return true;
        });
        const validation = await validateSkitDir(dir);
        assert.ok(validation.diagnostics.some((d) => d.code === code && d.file === 'SKILL.md'), `${name}: validate reports ${code} too`);
        // in a skills directory too
        const nested = join(root, `${name}-nested`);
        await mkdir(join(nested, 'skills', 'x'), { recursive: true });
        await writeTree(nested, { 'skills/ok/SKILL.md': skillMd('ok') });
        await make(join(nested, 'skills', 'x', 'SKILL.md'));
        const layout = discoverLayout(nested);
        assert.deepEqual(layout.kind === 'skills' && layout.diagnostics.map((d) => `${d.code} ${d.file}`), [`${code} skills/x/SKILL.md`]);
      }
    } finally {
      for (const s of servers) s.close();
    }
  });

  it('gives the frontmatter-size finding validation gives for a SKILL.md whose frontmatter passes 1 MiB', async () => {
    const big = '---\nname: kit\ndescription: d\nmetadata:\n' + Array.from({ length: 200_000 }, (_, i) => `  k${i}: v\n`).join('') + '---\nbody\n';
    await writeTree(root, { 'kit/SKILL.md': big, 'repo/skills/kit/SKILL.md': big });
    const validation = await validateSkitDir(join(root, 'kit'));
    const finding = validation.diagnostics.find((d) => d.code === 'SKILL_FRONTMATTER_TOO_LARGE');
    assert.ok(finding, JSON.stringify(validation.diagnostics.map((d) => d.code)));
    assert.equal(validation.ok, false);
    for (const [dir, file] of [['kit', 'SKILL.md'], ['repo', 'skills/kit/SKILL.md']]) {
      await assert.rejects(resolveSource(join(root, dir), { cwd: root, workDir: join(root, '.work') }), (e) => {
        assert.ok(isSfError(e, 'SF_E_VALIDATION'), String(e));
        const [d] = e.data?.diagnostics as Diagnostic[];
        assert.equal(d.code, 'SKILL_FRONTMATTER_TOO_LARGE');
        assert.equal(d.file, file);
        assert.equal(d.message, finding.message, 'the same words as validation');
        assert.doesNotMatch(e.message, /not closed/);
        return true;
      });
    }
  });

  it('treats a root SKILL.md as the one skill and warns about skills below it', async () => {
    await writeTree(root, { 'SKILL.md': skillMd('top'), 'skills/inner/SKILL.md': skillMd('inner') });
    const r = await resolveSource(root, { cwd: root, workDir: join(root, '.work') });
    assert.equal(r.kind, 'local-skill');
    assert.equal(r.rootSkill, true);
    assert.equal(r.descriptor, undefined);
    assert.equal(r.diagnostics?.[0].code, 'SOURCE_ROOT_SKILL_SHADOWS');
    assert.equal(r.diagnostics?.[0].severity, 'warning');
  });

  it('routes on README frontmatter: a skit key makes a SKIT, other frontmatter does not', async () => {
    await writeTree(root, { 'README.md': '---\ntitle: docs\n---\n', 'skills/a/SKILL.md': skillMd('a') });
    assert.equal(discoverLayout(root).kind, 'skills');
    await writeTree(root, { 'README.md': '---\nskit: 1\nid: [broken\n---\n' });
    assert.equal(discoverLayout(root).kind, 'skit', 'broken YAML under skit: is left to the validator');
  });

  it('does not follow symlinked skill directories', async () => {
    await writeTree(root, { 'elsewhere/SKILL.md': skillMd('linked') });
    await mkdir(join(root, 'skills'));
    await symlink(join(root, 'elsewhere'), join(root, 'skills', 'linked'));
    assert.equal(discoverLayout(root).kind, 'empty');
  });
});
