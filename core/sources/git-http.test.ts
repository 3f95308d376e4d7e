import { strict as assert } from 'node:assert';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { commitTree, git, gitBombRepo, initRepo, skillMd, unsafeTreeRepo } from '../../test-support/git.js';
import { startGitHttpServer } from '../../test-support/git-http-server.js';
import type { TestServer } from '../../test-support/http-server.js';
import { resolveSource } from './index.js';
import { parseGitSource } from './git-spec.js';
import { identity } from './identity.js';
import { httpCredentials } from './git-http.js';

const SECRET = 'pa55-w0rd-XYZ';
const TOKEN = 'tok-env-98765';

describe('core/sources git over smart HTTP (isomorphic-git against git http-backend)', function () {
  let root: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let privateServer: TestServer;
  let first: string;
  let mainHead: string;
  let devHead: string;
  let n = 0;
  const work = () => join(root, 'work', String(n++));

  before(async () => {
    ({ path: root, cleanup } = await tempDir('sf-src-githttp-'));
    const src = join(root, 'src');
    const projects = join(root, 'projects');
    await mkdir(src);
    await mkdir(projects);
    initRepo(src);
    first = await commitTree(src, { 'skills/review/SKILL.md': skillMd('review', 'first version') }, 'first');
    git(src, ['tag', '-a', 'v1', '-m', 'v1']);
    mainHead = await commitTree(src, { 'skills/review/SKILL.md': skillMd('review', 'second version') }, 'second');
    git(src, ['checkout', '--quiet', '-b', 'dev']);
    devHead = await commitTree(src, { 'kits/alpha/SKILL.md': skillMd('alpha') }, 'dev work');
    git(src, ['checkout', '--quiet', 'main']);
    git(root, ['clone', '--quiet', '--bare', src, join(projects, 'kit.git')]);
    git(root, ['clone', '--quiet', '--bare', src, join(projects, 'plain')]);
    gitBombRepo(join(projects, 'bomb.git'), 4, 10);
    const zeros = join(root, 'zeros');
    await mkdir(zeros);
    initRepo(zeros);
    await commitTree(zeros, { 'SKILL.md': skillMd('zeros'), 'zeros.bin': Buffer.alloc(2 * 1024 * 1024) }, 'zeros');
    git(root, ['clone', '--quiet', '--bare', zeros, join(projects, 'zeros.git')]);
    server = await startGitHttpServer({ projectRoot: projects });
    privateServer = await startGitHttpServer({ projectRoot: projects, auth: { username: 'bob', password: SECRET } });
  });
  after(async () => {
    await server.close();
    await privateServer.close();
    await cleanup();
  });

  it('shallow-clones the default branch, records the commit and removes .git', async () => {
    const r = await resolveSource(`${server.origin}/kit.git`, { cwd: root, workDir: work() });
    assert.equal(r.kind, 'git');
    assert.equal(r.commit, mainHead);
    assert.equal(r.ref, 'main');
    assert.equal(r.canonical, `${server.origin}/kit.git`);
    assert.equal(r.fingerprint.length, 64);
    assert.match(await readFile(join(r.dir, 'skills/review/SKILL.md'), 'utf8'), /second version/);
    assert.ok(!existsSync(join(r.dir, '.git')));
    assert.deepEqual(r.descriptor?.skills, [{ name: 'review', path: 'skills/review', default_enabled: true }]);
  });

  it('waits for a server that is silent for more than 5 s while it packs (the clone deadline is the timeout)', async function () {
    this.timeout(30_000);
    const slow = await startGitHttpServer({ projectRoot: join(root, 'projects'), packDelayMs: 6_000 });
    try {
      const r = await resolveSource(`${slow.origin}/kit.git`, { cwd: root, workDir: work() });
      assert.equal(r.commit, mainHead);
    } finally {
      await slow.close();
    }
  });

  it('reports an empty repository as SF_E_NOT_FOUND with a hint', async () => {
    git(root, ['init', '--quiet', '--bare', join(root, 'projects', 'empty.git')]);
    await assert.rejects(resolveSource(`${server.origin}/empty.git`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_NOT_FOUND') && /has no commits/.test(e.message));
  });

  it('refuses a repository whose tree names ".." with SF_E_UNSAFE_PATH', async () => {
    unsafeTreeRepo(join(root, 'projects', 'unsafe.git'));
    await assert.rejects(resolveSource(`${server.origin}/unsafe.git`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_UNSAFE_PATH') && /unsafe tree entry/.test(e.message) && Boolean(e.hint));
  });

  it('resolves #<ref>:<subpath> on another branch', async () => {
    const r = await resolveSource(`${server.origin}/kit.git#dev:kits/alpha`, { cwd: root, workDir: work() });
    assert.equal(r.commit, devHead);
    assert.equal(r.ref, 'dev');
    assert.equal(r.subpath, 'kits/alpha');
    assert.ok(r.dir.endsWith('/kits/alpha'));
    assert.equal(r.rootSkill, true);
    await assert.rejects(resolveSource(`${server.origin}/kit.git#dev:kits/none`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
  });

  it('resolves an annotated tag, a full commit id, and --version as the ref', async () => {
    const tag = await resolveSource(`${server.origin}/kit.git#v1`, { cwd: root, workDir: work() });
    assert.equal(tag.commit, first);
    assert.match(await readFile(join(tag.dir, 'skills/review/SKILL.md'), 'utf8'), /first version/);
    const sha = await resolveSource(`${server.origin}/kit.git#${first}`, { cwd: root, workDir: work() });
    assert.equal(sha.commit, first);
    const version = await resolveSource(`${server.origin}/kit.git`, { cwd: root, workDir: work(), version: 'v1' });
    assert.equal(version.commit, first);
    assert.equal(version.canonical, `${server.origin}/kit.git#v1`);
  });

  it('clones a path without .git when written git+http://', async () => {
    const r = await resolveSource(`git+${server.origin}/plain`, { cwd: root, workDir: work() });
    assert.equal(r.commit, mainHead);
    assert.equal(r.canonical, `git+${server.origin}/plain`);
    assert.equal(r.fingerprint, identity(parseGitSource(`${server.origin}/plain.git`).identityKey).fingerprint, 'same identity as the .git spelling');
  });

  it('stops a clone that reads more than the byte limit', async () => {
    await assert.rejects(
      resolveSource(`${server.origin}/kit.git`, { cwd: root, workDir: work(), limits: { maxGitBytes: 200 } }),
      (e) => isSfError(e, 'SF_E_LIMIT'),
    );
  });

  it('stops a checkout that would write more than the byte limit, though the pack read was small', async () => {
    const dir = work();
    await assert.rejects(
      resolveSource(`${server.origin}/zeros.git`, { cwd: root, workDir: dir, limits: { maxGitBytes: 1024 * 1024 } }),
      (e) => isSfError(e, 'SF_E_LIMIT') && /would check out more than 1048576 bytes/.test(e.message),
    );
    const written = (await import('node:fs')).readdirSync(dir, { recursive: true }).map(String);
    assert.ok(!written.some((p) => p.endsWith('zeros.bin')), 'the big file was not written');
    assert.equal((await resolveSource(`${server.origin}/zeros.git`, { cwd: root, workDir: work() })).kind, 'git');
  });

  it('refuses a "git bomb" (10,000 files from a pack of a few hundred bytes) before checking anything out', async () => {
    const dir = work();
    await assert.rejects(
      resolveSource(`${server.origin}/bomb.git`, { cwd: root, workDir: dir, limits: { maxGitFiles: 1000 } }),
      (e) => isSfError(e, 'SF_E_LIMIT') && /more than 1000 files/.test(e.message),
    );
    const written = (await import('node:fs')).readdirSync(dir, { recursive: true }).map(String).filter((p) => !p.includes('.git'));
    assert.deepEqual(written.filter((p) => /f\d$/.test(p)), [], 'no file of the tree was written');
  });

  it('reports a missing ref and a missing repository as SF_E_NOT_FOUND', async () => {
    await assert.rejects(resolveSource(`${server.origin}/kit.git#nope`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
    await assert.rejects(resolveSource(`${server.origin}/missing.git`, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
  });

  it('uses credentials from the URL in memory only', async () => {
    const r = await resolveSource(`http://bob:${SECRET}@${privateServer.origin.slice(7)}/kit.git#main`, { cwd: root, workDir: work(), env: {} });
    assert.equal(r.commit, mainHead);
    assert.ok(!JSON.stringify(r).includes(SECRET), 'no credential in the resolved source');
    assert.ok(!JSON.stringify(r).includes('bob'), 'no user name either');
    const anonymous = await resolveSource(`${privateServer.origin}/kit.git#main`, { cwd: root, workDir: work(), env: { SF_GIT_TOKEN: SECRET, SF_GIT_USERNAME: 'bob' } });
    assert.equal(anonymous.fingerprint, r.fingerprint, 'credentials do not change the identity');
  });

  it('fails with SF_E_AUTH and a redacted message when credentials are refused or missing', async () => {
    for (const env of [{}, { SF_GIT_TOKEN: TOKEN }]) {
      await assert.rejects(resolveSource(`http://bob:wrong-${SECRET}@${privateServer.origin.slice(7)}/kit.git`, { cwd: root, workDir: work(), env }), (e) => {
        assert.ok(isSfError(e, 'SF_E_AUTH'), String(e));
        const text = JSON.stringify({ m: e.message, h: e.hint, d: e.data });
        assert.ok(!text.includes(SECRET) && !text.includes(TOKEN), text);
        return true;
      });
    }
    await assert.rejects(resolveSource(`${privateServer.origin}/kit.git`, { cwd: root, workDir: work(), env: {} }), (e) => isSfError(e, 'SF_E_AUTH'));
  });

  it('offers credentials only after a 401, and the env token never over plain http to a remote host', async () => {
    const before = privateServer.requests.length;
    await resolveSource(`${privateServer.origin}/kit.git`, { cwd: root, workDir: work(), env: { SF_GIT_TOKEN: SECRET, SF_GIT_USERNAME: 'bob' } });
    const seen = privateServer.requests.slice(before);
    assert.equal(seen[0].headers.authorization, undefined, 'the first request carries no credentials');
    assert.ok(seen.slice(1).every((r) => r.headers.authorization !== undefined));
    assert.equal(httpCredentials('http://git.example.com/x.git', { SF_GIT_TOKEN: TOKEN }), undefined);
    assert.deepEqual(httpCredentials('https://git.example.com/x.git', { SF_GIT_TOKEN: TOKEN }), { username: 'x-access-token', password: TOKEN });
  });

  it('says why when SF_GIT_TOKEN is set but withheld (plain http to a host that is not a loopback name)', async function () {
    // this machine's own name reaches the server on 127.0.0.1 without being a loopback name
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (resolved?.address !== '127.0.0.1') this.skip();
    const url = `http://${name}:${new URL(privateServer.origin).port}/kit.git`;
    await assert.rejects(resolveSource(url, { cwd: root, workDir: work(), env: { SF_GIT_TOKEN: TOKEN, SF_GIT_USERNAME: 'bob' } }), (e) => {
      assert.ok(isSfError(e, 'SF_E_AUTH'), String(e));
      assert.match(e.message, /SF_GIT_TOKEN is set but was not sent/);
      assert.match(e.hint ?? '', /https:\/\//);
      assert.ok(!JSON.stringify({ m: e.message, h: e.hint }).includes(TOKEN));
      return true;
    });
  });
});
