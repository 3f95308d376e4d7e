import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir, writeTree } from '../../test-support/index.js';
import { skillMd } from '../../test-support/git.js';
import { serveRoutes, type TestServer } from '../../test-support/http-server.js';
import { resolveSource } from './index.js';

/** Builds `name` in `dir` from the entries of `src` with the system tar or zip. */
function pack(dir: string, src: string, name: string, entries: string[]): string {
  const out = join(dir, name);
  if (name.endsWith('.zip')) execFileSync('zip', ['-q', '-r', out, ...entries], { cwd: src });
  else execFileSync('tar', [name.endsWith('.tar') ? '-cf' : '-czf', out, ...entries], { cwd: src });
  return out;
}

describe('core/sources archives (.zip, .tar, .tar.gz, .tgz; local and http)', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let n = 0;
  const work = () => join(root, 'work', String(n++));

  before(async () => {
    ({ path: root, cleanup } = await tempDir('sf-src-archive-'));
    root = await realpath(root);
    const src = join(root, 'src');
    await writeTree(src, {
      'kit-main/skills/a/SKILL.md': skillMd('a'),
      'kit-main/skills/b/SKILL.md': skillMd('b'),
      'flat/skills/a/SKILL.md': skillMd('a'),
      'flat/skills/b/SKILL.md': skillMd('b'),
    });
    await mkdir(join(root, 'dist'));
    for (const ext of ['zip', 'tar', 'tar.gz', 'tgz']) pack(join(root, 'dist'), src, `wrapped.${ext}`, ['kit-main']);
    pack(join(root, 'dist'), join(src, 'flat'), 'flat.tgz', ['skills']);
    const tgz = await readFile(join(root, 'dist', 'wrapped.tgz'));
    server = await serveRoutes({
      '/releases/kit.tgz': { body: tgz, headers: { 'content-type': 'application/gzip' } },
      '/download/latest': { body: await readFile(join(root, 'dist', 'wrapped.zip')) },
      '/moved/kit.tgz': { status: 302, headers: { location: '/releases/kit.tgz' } },
      '/bad/kit.tgz': { body: 'this is not gzip' },
    });
  });
  after(async () => {
    await server.close();
    await cleanup();
  });

  for (const ext of ['zip', 'tar', 'tar.gz', 'tgz']) {
    it(`unpacks a local .${ext}, unwrapping a single top-level directory`, async () => {
      const r = await resolveSource(`./dist/wrapped.${ext}`, { cwd: root, workDir: work() });
      assert.equal(r.kind, 'archive');
      assert.equal(r.canonical, join(root, 'dist', `wrapped.${ext}`));
      assert.ok(r.dir.startsWith(join(root, 'work')), 'materialized inside workDir');
      assert.deepEqual(r.descriptor?.skills.map((s) => s.path), ['skills/a', 'skills/b']);
      assert.match(await readFile(join(r.dir, 'skills/a/SKILL.md'), 'utf8'), /name: a/);
    });
  }

  it('does not unwrap an archive whose only top-level entry is skills/', async () => {
    const r = await resolveSource(join(root, 'dist', 'flat.tgz'), { cwd: '/', workDir: work() });
    assert.deepEqual(r.descriptor?.skills.map((s) => s.path), ['skills/a', 'skills/b']);
  });

  it('downloads an http(s) archive URL, following a redirect; the identity ignores query and fragment', async () => {
    const direct = await resolveSource(`${server.origin}/releases/kit.tgz`, { cwd: root, workDir: work() });
    assert.equal(direct.kind, 'archive');
    assert.equal(direct.canonical, `${server.origin}/releases/kit.tgz`);
    assert.deepEqual(direct.descriptor?.skills.map((s) => s.name), ['a', 'b']);
    const signed = await resolveSource(`${server.origin}/releases/kit.tgz?sig=abc#x`, { cwd: root, workDir: work() });
    assert.equal(signed.fingerprint, direct.fingerprint);
    const moved = await resolveSource(`${server.origin}/moved/kit.tgz`, { cwd: root, workDir: work() });
    assert.equal(moved.canonical, `${server.origin}/moved/kit.tgz`, 'the identity is the URL the user gave');
  });

  it('sniffs an archive served without an archive extension', async () => {
    const r = await resolveSource(`${server.origin}/download/latest`, { cwd: root, workDir: work() });
    assert.equal(r.kind, 'archive');
    assert.deepEqual(r.descriptor?.skills.map((s) => s.name), ['a', 'b']);
  });

  it('fails clearly on a non-archive body, a 404 and an archive over the size limit', async () => {
    await assert.rejects(resolveSource(`${server.origin}/bad/kit.tgz`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_ARCHIVE_FORMAT'));
    await assert.rejects(
      resolveSource(`${server.origin}/gone/kit.zip`, { cwd: root, workDir: work() }),
      (e) => isSfError(e, 'SF_E_FETCH') && e.data?.status === 404 && e.message.includes('HTTP 404'),
    );
    await assert.rejects(
      resolveSource(`${server.origin}/releases/kit.tgz`, { cwd: root, workDir: work(), limits: { maxArchiveBytes: 64 } }),
      (e) => isSfError(e, 'SF_E_LIMIT'),
    );
  });

  it('passes core/archive refusals through (a traversal entry)', async () => {
    const evil = join(root, 'evil');
    await writeTree(evil, { 'x/SKILL.md': skillMd('x') });
    execFileSync('tar', ['-czf', join(root, 'dist', 'evil.tgz'), '-P', `--transform=s,^x,../x,`, 'x'], { cwd: evil });
    await assert.rejects(resolveSource('./dist/evil.tgz', { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_ARCHIVE_UNSAFE'));
  });
});
