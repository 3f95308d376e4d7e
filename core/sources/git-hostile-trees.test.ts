import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { GIT_TEST_ENV, commitTree, git, initRepo, skillMd } from '../../test-support/git.js';
import { startGitHttpServer } from '../../test-support/git-http-server.js';
import type { TestServer } from '../../test-support/http-server.js';
import { ObjectSizes } from './git-object-size.js';
import { resolveSource } from './index.js';

/**
 * Hostile trees over both git transports: smart HTTP (isomorphic-git, the pre-checkout walk of
 * git-tree-walk.ts) and file:// (the system git, fsck and its ls-tree listing). Repositories are
 * built with git plumbing (`hash-object --literally` where git itself would refuse) and served by
 * a real `git http-backend` on 127.0.0.1.
 */

type Entry = [mode: string, name: string | Buffer, oid: string];

/** A bare repository whose objects are written one by one; `main` is set with `commit`. */
class RawRepo {
  constructor(readonly dir: string) {
    git('/', ['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  }

  blob(content: string | Buffer): string {
    return this.object('blob', Buffer.from(content));
  }

  /** A tree with `entries` exactly in the order given (duplicates, disorder and odd names kept). */
  tree(entries: Entry[]): string {
    return this.object('tree', Buffer.concat(entries.map(([mode, name, oid]) => Buffer.concat([Buffer.from(`${mode} `), Buffer.from(name), Buffer.from([0]), Buffer.from(oid, 'hex')]))));
  }

  commit(tree: string): void {
    const commit = execFileSync('git', ['-C', this.dir, 'commit-tree', tree, '-m', 'c'], { env: GIT_TEST_ENV }).toString().trim();
    git(this.dir, ['update-ref', 'refs/heads/main', commit]);
  }

  private object(type: string, bytes: Buffer): string {
    return execFileSync('git', ['-C', this.dir, 'hash-object', '-w', '--literally', '-t', type, '--stdin'], { env: GIT_TEST_ENV, input: bytes }).toString().trim();
  }
}

/** `levels` levels of trees, each naming the one below `fanout` times, over `bottom`: fanout^levels leaves. */
function bomb(repo: RawRepo, levels: number, fanout: number, bottom: Entry[]): string {
  let tree = repo.tree(bottom);
  for (let l = 0; l < levels; l++) tree = repo.tree(Array.from({ length: fanout }, (_, i): Entry => ['40000', `d${i}`, tree]));
  return tree;
}

describe('core/sources hostile git trees, over smart HTTP and file://', function () {
  this.timeout(60_000);
  let root: string;
  let cleanup: () => Promise<void>;
  let server: TestServer;
  let n = 0;
  const projects = () => join(root, 'projects');
  const work = () => join(root, 'work', String(n++));
  const http = (name: string) => `${server.origin}/${name}`;
  const file = (name: string) => `file://${join(projects(), name)}`;
  const repo = (name: string) => new RawRepo(join(projects(), name));
  /** What a checkout below `dir` wrote, .git aside. */
  const written = async (dir: string) => (await readdir(dir, { recursive: true }).catch(() => [] as string[])).map(String).filter((p) => !p.split('/').includes('.git') && /\//.test(p) && !/^git-[^/]+$/.test(p));

  before(async () => {
    ({ path: root, cleanup } = await tempDir('sf-src-git-hostile-'));
    await mkdir(projects());
    server = await startGitHttpServer({ projectRoot: projects() });
  });
  after(async () => {
    await server.close();
    await cleanup();
  });

  it('stops the walk of a 10^5-entry git bomb at the entry budget, before it reaches the rest of the tree', async () => {
    const r = repo('bomb-then-more.git');
    const kit = r.blob(skillMd('kit'));
    // read after the bomb in tree order: a tree naming "..", which the walk must never get to
    const rest = r.tree([['100644', '..', kit]]);
    r.commit(r.tree([['40000', 'a', bomb(r, 5, 10, [['100644', 'f', kit]])], ['40000', 'z', rest]]));
    const dir = work();
    await assert.rejects(resolveSource(http('bomb-then-more.git'), { cwd: root, workDir: dir, limits: { maxGitFiles: 1000 } }), (e) => {
      assert.ok(isSfError(e, 'SF_E_LIMIT'), String(e));
      assert.match(e.message, /would check out more than 1000 files and directories; nothing was installed/);
      assert.equal(e.data?.files, 1001);
      return true;
    });
    assert.deepEqual(await written(dir), [], 'nothing was checked out');
  });

  it('counts directories: a bomb of empty trees (no file at all) is refused at the entry budget on both transports', async () => {
    const r = repo('empty-trees.git');
    r.commit(bomb(r, 4, 10, []));
    for (const url of [http('empty-trees.git'), file('empty-trees.git')]) {
      const dir = work();
      await assert.rejects(resolveSource(url, { cwd: root, workDir: dir, limits: { maxGitFiles: 1000 } }), (e) => isSfError(e, 'SF_E_LIMIT') && /more than 1000 files and directories/.test(e.message), url);
      assert.deepEqual(await written(dir), [], url);
    }
  });

  it('refuses a path deeper than the depth budget on both transports', async () => {
    const r = repo('deep.git');
    const skill = r.blob(skillMd('deep'));
    let tree = r.tree([['100644', 'notes.md', skill]]);
    for (let i = 0; i < 12; i++) tree = r.tree([['40000', `l${i}`, tree]]);
    r.commit(r.tree([['100644', 'SKILL.md', skill], ['40000', 'deep', tree]]));
    for (const url of [http('deep.git'), file('deep.git')]) {
      await assert.rejects(resolveSource(url, { cwd: root, workDir: work(), limits: { maxGitDepth: 10 } }), (e) => {
        assert.ok(isSfError(e, 'SF_E_LIMIT'), `${url}: ${String(e)}`);
        assert.match(e.message, /has a path more than 10 directories deep \(deep\/l11\/l10\/.*\); nothing was installed/);
        return true;
      });
    }
    for (const url of [http('deep.git'), file('deep.git')]) {
      const fits = await resolveSource(url, { cwd: root, workDir: work(), limits: { maxGitDepth: 14 } });
      assert.ok(fs.existsSync(join(fits.dir, 'deep', ...Array.from({ length: 12 }, (_, i) => `l${11 - i}`), 'notes.md')), url);
    }
  });

  it('reads blob sizes from the pack headers: a blob over the byte budget is refused by the walk, before anything else is read', async () => {
    const r = repo('big-then-more.git');
    const kit = r.blob(skillMd('kit'));
    const big = r.blob(Buffer.alloc(3 * 1024 * 1024, 'ab'));
    r.commit(r.tree([['100644', 'a.bin', big], ['40000', 'z', r.tree([['100644', '..', kit]])]]));
    const dir = work();
    await assert.rejects(
      resolveSource(http('big-then-more.git'), { cwd: root, workDir: dir, limits: { maxGitBytes: 1024 * 1024 } }),
      (e) => isSfError(e, 'SF_E_LIMIT') && /would check out more than 1048576 bytes/.test(e.message),
    );
    assert.deepEqual(await written(dir), []);
  });

  it('refuses a tree naming one entry twice, as a link and as a directory, in either order, on both transports (fsck duplicateEntries)', async () => {
    for (const order of ['link-first', 'dir-first']) {
      const r = repo(`dup-${order}.git`);
      const link: Entry = ['120000', 'out', r.blob('/etc')];
      const dirEntry: Entry = ['40000', 'out', r.tree([['100644', 'file.md', r.blob('x\n')]])];
      const kit = r.tree([['100644', 'SKILL.md', r.blob(skillMd('kit'))], ...(order === 'link-first' ? [link, dirEntry] : [dirEntry, link])]);
      r.commit(r.tree([['40000', 'skills', r.tree([['40000', 'kit', kit]])]]));
      for (const url of [http(`dup-${order}.git`), file(`dup-${order}.git`)]) {
        const dir = work();
        await assert.rejects(resolveSource(url, { cwd: root, workDir: dir }), (e) => {
          assert.ok(isSfError(e, 'SF_E_UNSAFE_PATH'), `${order} ${url}: ${String(e)}`);
          assert.match(e.message, /contains an unsafe tree entry \(duplicateEntries: .*\); nothing was installed/);
          return true;
        });
        assert.deepEqual(await written(dir), [], `${order} ${url}`);
      }
    }
  });

  it('refuses a tree whose entries are out of git order on both transports (fsck treeNotSorted)', async () => {
    const r = repo('unsorted.git');
    const x = r.blob('x\n');
    r.commit(r.tree([['100644', 'SKILL.md', r.blob(skillMd('unsorted'))], ['100644', 'b.md', x], ['100644', 'a.md', x]]));
    for (const url of [http('unsorted.git'), file('unsorted.git')]) {
      await assert.rejects(resolveSource(url, { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_UNSAFE_PATH') && /treeNotSorted/.test(e.message), url);
    }
  });

  it('reports a checkout write that fails with its own error, without isomorphic-git printing stack traces', async () => {
    const r = repo('long-name.git');
    const kit = r.blob(skillMd('long'));
    // git stores a 300-byte name; no Linux filesystem takes it
    r.commit(r.tree([['100644', 'SKILL.md', kit], ['100644', `${'n'.repeat(300)}.md`, kit]]));
    const printed: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => (printed.push(String(chunk)), typeof rest.at(-1) === 'function' && (rest.at(-1) as () => void)(), true)) as typeof process.stderr.write;
    try {
      await assert.rejects(resolveSource(http('long-name.git'), { cwd: root, workDir: work() }), (e) => {
        assert.ok(isSfError(e, 'SF_E_GIT'), String(e));
        assert.match(e.message, /ENAMETOOLONG/);
        assert.doesNotMatch(e.message, /multiple errors/);
        return true;
      });
    } finally {
      process.stderr.write = write;
    }
    assert.deepEqual(printed, [], 'nothing printed to stderr');
  });

  it('refuses over HTTP an entry name that is not UTF-8, which isomorphic-git would write under another name', async () => {
    const r = repo('latin1.git');
    r.commit(r.tree([['100644', 'SKILL.md', r.blob(skillMd('latin1'))], ['100644', Buffer.from('caf\xe9.md', 'latin1'), r.blob('x\n')]]));
    await assert.rejects(resolveSource(http('latin1.git'), { cwd: root, workDir: work() }), (e) => isSfError(e, 'SF_E_UNSAFE_PATH') && /badEncoding: "caf.\.md" is not valid UTF-8/.test(e.message));
  });
});

describe('ObjectSizes (core/sources/git-object-size)', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  before(async () => ({ path: root, cleanup } = await tempDir('sf-git-sizes-')));
  after(() => cleanup());

  /** Every object of the repository at `dir` with the size git gives it. */
  function objects(dir: string): [string, number][] {
    const ids = git(dir, ['rev-list', '--objects', '--all']).split('\n').map((l) => l.split(' ')[0]);
    return ids.map((id) => [id, Number(git(dir, ['cat-file', '-s', id]))]);
  }

  it('gives every object the size git gives it: loose, packed whole, and packed as a delta', async () => {
    const dir = join(root, 'repo');
    await mkdir(dir);
    initRepo(dir);
    const text = Array.from({ length: 4000 }, (_, i) => `line ${i} of a file that changes a little between commits\n`).join('');
    await commitTree(dir, { 'a.txt': text, 'empty.txt': '', 'zeros.bin': Buffer.alloc(300_000), 'skills/x/SKILL.md': skillMd('x') }, 'one');
    await commitTree(dir, { 'a.txt': text.replace('line 7 ', 'LINE 7 ') + 'one more\n' }, 'two');
    await commitTree(dir, { 'a.txt': text.slice(1000) }, 'three');
    const gitdir = join(dir, '.git');
    const loose = new ObjectSizes(gitdir);
    for (const [id, size] of objects(dir)) assert.equal(loose.size(id), size, `loose ${id}`);
    loose.close();
    git(dir, ['repack', '-a', '-d', '-f', '--depth=5', '--window=10', '--quiet']);
    assert.ok(git(dir, ['verify-pack', '-v', ...(await readdir(join(gitdir, 'objects', 'pack'))).filter((f) => f.endsWith('.idx')).map((f) => join(gitdir, 'objects', 'pack', f))]).match(/ blob +\d+ \d+ \d+ \d+ [0-9a-f]{40}/), 'the pack holds deltas');
    const packed = new ObjectSizes(gitdir);
    for (const [id, size] of objects(dir)) assert.equal(packed.size(id), size, `packed ${id}`);
    assert.equal(packed.size('0'.repeat(40)), undefined, 'an object that is not there');
    packed.close();
  });

  it('reads the pack an isomorphic-git clone over HTTP wrote', async () => {
    const src = join(root, 'src');
    const projects = join(root, 'projects');
    await mkdir(src);
    await mkdir(projects);
    initRepo(src);
    const text = Array.from({ length: 3000 }, (_, i) => `row ${i}\n`).join('');
    await commitTree(src, { 'data.txt': text, 'SKILL.md': skillMd('src') }, 'one');
    await commitTree(src, { 'data.txt': text + 'row more\n' }, 'two');
    git(root, ['clone', '--quiet', '--bare', src, join(projects, 'src.git')]);
    const server = await startGitHttpServer({ projectRoot: projects });
    try {
      const igit = await import('isomorphic-git');
      const nodeHttp = (await import('isomorphic-git/http/node')).default;
      const dest = join(root, 'clone');
      await igit.clone({ fs, http: nodeHttp, dir: dest, url: `${server.origin}/src.git`, noCheckout: true });
      const sizes = new ObjectSizes(join(dest, '.git'));
      for (const [id, size] of objects(join(projects, 'src.git'))) assert.equal(sizes.size(id), size, id);
      sizes.close();
    } finally {
      await server.close();
    }
    await writeFile(join(root, 'done'), '');
  });
});
