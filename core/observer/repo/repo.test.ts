import assert from 'node:assert/strict';
import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../../test-support/index.js';
import { commitTree, git, initRepo } from '../../../test-support/git.js';
import { repoIdentity } from './fingerprint.js';
import { gitFacts } from './git-facts.js';
import { normalizeRemote, parseRemotes } from './remote.js';

const KEY = Buffer.alloc(32, 7);

describe('observer repository resolution (real git)', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (tmp = await tempDir('sf-repo-')));
  afterEach(() => tmp.cleanup());

  it('resolves worktree root, git dirs, remotes and HEAD, and separates linked worktrees', async () => {
    const main = join(tmp.path, 'app');
    await mkdir(main);
    initRepo(main);
    const sha = await commitTree(main, { 'src/a.ts': 'x\n' }, 'first');
    git(main, ['remote', 'add', 'origin', 'https://user:secret-token@GitHub.com/Acme/App.git']);
    git(main, ['worktree', 'add', '--quiet', '-b', 'feature', join(tmp.path, 'app-feature')]);
    git(main, ['pack-refs', '--all']);

    const a = (await gitFacts(join(main, 'src')))!;
    assert.equal(a.worktreeRoot, await realpath(main));
    assert.equal(a.gitDir, a.commonDir);
    assert.equal(a.head, sha, 'HEAD resolves through packed-refs');
    assert.equal(a.branch, 'main');
    assert.equal(a.remotes.origin, 'https://user:secret-token@GitHub.com/Acme/App.git');

    const b = (await gitFacts(join(tmp.path, 'app-feature')))!;
    assert.equal(b.commonDir, a.commonDir);
    assert.notEqual(b.gitDir, a.gitDir);
    assert.equal(b.branch, 'feature');

    const ia = repoIdentity(KEY, a.canonicalCwd, a, [], 'host1');
    const ib = repoIdentity(KEY, b.canonicalCwd, b, [], 'host1');
    assert.ok(ia.resolved && ib.resolved);
    assert.equal(ia.fingerprints['forge.repository.fingerprint'], ib.fingerprints['forge.repository.fingerprint'], 'one repository');
    assert.notEqual(ia.fingerprints['forge.worktree.fingerprint'], ib.fingerprints['forge.worktree.fingerprint'], 'two worktrees');
    assert.notEqual(ia.fingerprints['forge.workspace.fingerprint'], ib.fingerprints['forge.workspace.fingerprint']);
    for (const fp of Object.values(ia.fingerprints)) {
      assert.match(fp!, /^[0-9a-f]{64}$/);
      assert.ok(!fp!.includes('secret'));
    }
    // a fresh clone elsewhere with the same origin is the same repository, a different workspace
    const clone = join(tmp.path, 'clone');
    await mkdir(clone);
    initRepo(clone);
    git(clone, ['remote', 'add', 'origin', 'git@github.com:Acme/App.git']);
    const ic = repoIdentity(KEY, clone, (await gitFacts(clone))!, [], 'host1');
    assert.equal(ic.fingerprints['forge.repository.fingerprint'], ia.fingerprints['forge.repository.fingerprint']);
    assert.notEqual(ic.fingerprints['forge.workspace.fingerprint'], ia.fingerprints['forge.workspace.fingerprint']);
    // another key: unlinkable fingerprints
    assert.notEqual(repoIdentity(Buffer.alloc(32, 8), a.canonicalCwd, a, [], 'host1').fingerprints['forge.repository.fingerprint'], ia.fingerprints['forge.repository.fingerprint']);
  });

  it('follows symlinked cwds; outside a repository it is unresolved unless linked; ambiguous links stay unresolved', async () => {
    const repo = join(tmp.path, 'r');
    await mkdir(repo);
    initRepo(repo);
    await symlink(repo, join(tmp.path, 'alias'));
    const facts = (await gitFacts(join(tmp.path, 'alias')))!;
    assert.equal(facts.worktreeRoot, await realpath(repo));
    const local = repoIdentity(KEY, facts.canonicalCwd, facts, []);
    assert.ok(local.resolved, 'a local-only repository resolves by its common dir');

    const plain = join(tmp.path, 'plain');
    await mkdir(plain);
    assert.equal(await gitFacts(plain), undefined);
    assert.deepEqual(repoIdentity(KEY, plain, undefined, []), { resolved: false, fingerprints: {}, reason: 'not_a_repository' });
    const linked = repoIdentity(KEY, plain, undefined, [{ repository: 'acme/app', path: plain }]);
    assert.ok(linked.resolved);
    const viaRemote = repoIdentity(KEY, facts.canonicalCwd, { ...facts, remotes: { origin: 'https://github.com/acme/app' } }, []);
    assert.notEqual(linked.fingerprints['forge.repository.fingerprint'], viaRemote.fingerprints['forge.repository.fingerprint']);
    const both = repoIdentity(KEY, plain, undefined, [{ repository: 'acme/app', path: plain }, { repository: 'acme/other', path: plain }]);
    assert.deepEqual(both, { resolved: false, fingerprints: {}, reason: 'ambiguous_link' });
    const nested = repoIdentity(KEY, join(plain, 'sub'), undefined, [{ repository: 'acme/app', path: tmp.path }, { repository: 'acme/inner', path: plain }]);
    assert.equal(nested.fingerprints['forge.repository.fingerprint'], repoIdentity(KEY, plain, undefined, [{ repository: 'acme/inner', path: plain }]).fingerprints['forge.repository.fingerprint']);
  });

  it('a linked worktree of a linked main checkout is the same repository (its own worktree fingerprint)', async () => {
    const main = join(tmp.path, 'main');
    await mkdir(main);
    initRepo(main);
    await commitTree(main, { 'a.txt': 'a\n' }, 'one');
    const wt = join(tmp.path, 'wt');
    git(main, ['worktree', 'add', '--quiet', '-b', 'side', wt]);
    const links = [{ repository: 'acme/main', path: await realpath(main) }];
    const [m, w] = [(await gitFacts(main))!, (await gitFacts(wt))!];
    const [im, iw] = [repoIdentity(KEY, m.canonicalCwd, m, links), repoIdentity(KEY, w.canonicalCwd, w, links)];
    assert.equal(iw.fingerprints['forge.repository.fingerprint'], im.fingerprints['forge.repository.fingerprint']);
    assert.notEqual(iw.fingerprints['forge.worktree.fingerprint'], im.fingerprints['forge.worktree.fingerprint']);
    // a link on the worktree itself still wins
    const own = repoIdentity(KEY, w.canonicalCwd, w, [...links, { repository: 'acme/side', path: await realpath(wt) }]);
    assert.notEqual(own.fingerprints['forge.repository.fingerprint'], im.fingerprints['forge.repository.fingerprint']);
  });

  it('normalizes remotes without credentials', () => {
    assert.equal(normalizeRemote('https://u:p@GitHub.com:443/Acme/App.git/'), 'github.com/Acme/App');
    assert.equal(normalizeRemote('git@github.com:Acme/App.git'), 'github.com/Acme/App');
    assert.equal(normalizeRemote('ssh://git@gitlab.example:2222/group/sub/app.git'), 'gitlab.example/group/sub/app');
    assert.equal(normalizeRemote('/srv/git/app.git'), undefined);
    assert.equal(normalizeRemote('file:///srv/git/app.git'), undefined);
    assert.deepEqual(parseRemotes('[core]\n\turl = nope\n[remote "origin"]\n\turl = https://x/y.git\n\tfetch = +refs/heads/*\n[remote "up"]\n url = "git@h:o/r"\n'), { origin: 'https://x/y.git', up: 'git@h:o/r' });
  });
});
