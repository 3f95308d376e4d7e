import { strict as assert } from 'node:assert';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { repoRoot, tempDir } from '../../test-support/index.js';

type TempDir = Awaited<ReturnType<typeof tempDir>>;
import { traceSyscalls } from '../../test-support/syscalls.js';
import { memoSkillsBelow } from './skill-names.js';

const skillMd = (name: string) => `---\nname: ${name}\ndescription: ${name}\n---\n`;

/**
 * A skill root as a library leaves it: plain skill directories (copies, the user's own), links
 * into the store (Forge's projections) and a link elsewhere (the user's).
 */
async function root(tmp: TempDir): Promise<{ root: string; store: string; plain: string[]; storeLinks: string[]; foreignLink: string }> {
  const store = join(tmp.path, 'store');
  const root = join(tmp.path, 'skills');
  const plain: string[] = [];
  const storeLinks: string[] = [];
  for (let i = 0; i < 6; i++) {
    const dir = join(root, `own-${i}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'SKILL.md'), skillMd(i === 0 ? 'renamed' : `own-${i}`));
    plain.push(dir);
  }
  for (let i = 0; i < 3; i++) {
    const source = join(store, 'ab'.repeat(32), 'skills', `forge-${i}`);
    await mkdir(source, { recursive: true });
    await writeFile(join(source, 'SKILL.md'), skillMd(`forge-${i}`));
    storeLinks.push(join(root, `forge-${i}`));
    await symlink(source, storeLinks[i]);
  }
  const elsewhere = join(tmp.path, 'mine', 'theirs');
  await mkdir(elsewhere, { recursive: true });
  await writeFile(join(elsewhere, 'SKILL.md'), skillMd('theirs'));
  const foreignLink = join(root, 'theirs');
  await symlink(elsewhere, foreignLink);
  return { root, store, plain, storeLinks, foreignLink };
}

describe('skill-names: finding the skills of a skill root', () => {
  let tmp: TempDir;
  beforeEach(async () => (tmp = await tempDir('sf-skill-names-')));
  afterEach(() => tmp.cleanup());

  it('finds every skill by name, leaves out links into the store when asked, and says which found skill links into the store', async () => {
    const r = await root(tmp);
    const skipping = await memoSkillsBelow(r.root, 4, r.store, true);
    assert.deepEqual(skipping.map((f) => [basename(f.dir), f.name, f.storeLink]).sort(), [
      ['own-0', 'renamed', undefined], ['own-1', 'own-1', undefined], ['own-2', 'own-2', undefined], ['own-3', 'own-3', undefined],
      ['own-4', 'own-4', undefined], ['own-5', 'own-5', undefined], ['theirs', 'theirs', undefined],
    ]);
    const all = await memoSkillsBelow(r.root, 1, r.store, false);
    assert.deepEqual(all.filter((f) => f.storeLink !== undefined).map((f) => [f.dir, f.storeLink]).sort(),
      r.storeLinks.map((l, i) => [l, join(r.store, 'ab'.repeat(32), 'skills', `forge-${i}`)]));
    assert.equal(all.length, 10);
  });

  it('reads the target of the links among a root\'s entries only, and stats none of them: readdir already says what each entry is', async () => {
    const r = await root(tmp);
    const module = join(repoRoot, 'adapters', 'shared', 'skill-names.ts');
    const calls = await traceSyscalls(
      `const m = await import(${JSON.stringify(module)}); await m.memoSkillsBelow(${JSON.stringify(r.root)}, 4, ${JSON.stringify(r.store)}, true);`,
      'readlink,readlinkat,lstat,stat,newfstatat,statx',
    );
    const entries = new Set([...r.plain, ...r.storeLinks, r.foreignLink]);
    const about = (c: { args: string }) => [...c.args.matchAll(/"([^"]*)"/g)].map((m) => m[1]).find((p) => entries.has(p));
    const readlinks = calls.filter((c) => c.call.startsWith('readlink')).map(about).filter((p) => p !== undefined).sort();
    assert.deepEqual(readlinks, [...r.storeLinks, r.foreignLink].sort());
    assert.deepEqual(calls.filter((c) => !c.call.startsWith('readlink') && about(c) !== undefined).map((c) => `${c.call}(${c.args})`), []);
  });
});
