import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, symlinkSync } from 'node:fs';
import { mkdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackArchive } from '../../../core/archive/unpack.js';
import { walkTree } from '../../../core/skit/tree.js';
import { runSf, tempDir, writeTree } from '../../../test-support/index.js';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('sf skit pack', () => {
  let box: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    box = await tempDir('sf-pack-cli-');
  });
  afterEach(async () => box.cleanup());

  it('packs a valid SKIT deterministically and reports size, entries and sha256', async () => {
    const skit = join(box.path, 'skit');
    assert.equal((await runSf(['skit', 'init', skit])).code, 0);
    const first = await runSf(['skit', 'pack', skit, '-o', join(box.path, 'a.tgz'), '--json']);
    assert.equal(first.code, 0, first.stderr);
    const report = JSON.parse(first.stdout);
    const bytes = await readFile(join(box.path, 'a.tgz'));
    assert.deepEqual(report, { ok: true, id: 'local/skit', archive: join(box.path, 'a.tgz'), size: bytes.length, entries: 4, sha256: sha(bytes) });

    // touching mtimes changes nothing, packing from inside the SKIT included
    for (const f of (await walkTree(skit)).files) await utimes(f.abs, new Date(2001, 1, 1), new Date(2001, 1, 1));
    const again = await runSf(['skit', 'pack', '-o', '../b.tgz'], { cwd: skit });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`sha256\\s+${report.sha256}`));
    assert.match(again.stdout, /entries\s+4 files/);
    assert.equal(sha(await readFile(join(box.path, 'b.tgz'))), report.sha256);

    const dest = join(box.path, 'unpacked');
    const { files } = await unpackArchive(join(box.path, 'a.tgz'), dest);
    assert.deepEqual(files.map((f) => f.path), (await walkTree(skit)).files.map((f) => f.path));
  });

  it('refuses an archive inside the SKIT (it would become content the next hash, publish and install take), also through a link (cliux D5)', async () => {
    const skit = join(box.path, 'my-skit');
    assert.equal((await runSf(['skit', 'init', skit])).code, 0);
    const hash = async () => JSON.parse((await runSf(['skit', 'hash', skit, '--json'])).stdout).bundle;
    const before = await hash();
    const inside = await runSf(['skit', 'pack', '-o', 'out.tgz'], { cwd: skit });
    assert.equal(inside.code, 2, inside.stdout);
    assert.match(inside.stderr, /error\[SF_E_USAGE\]: -o out\.tgz is inside the SKIT \S+my-skit: the archive would become part of the SKIT's content/);
    assert.match(inside.stderr, /hint: write it outside the SKIT, e\.g\. -o \.\.\/my-skit\.tgz/);
    symlinkSync(skit, join(box.path, 'link'));
    const viaLink = await runSf(['skit', 'pack', 'my-skit', '-o', 'link/nested/out.tgz', '--json'], { cwd: box.path });
    assert.equal(viaLink.code, 2, viaLink.stdout);
    assert.match(JSON.parse(viaLink.stderr).error.hint, /-o my-skit\.tgz$/);
    assert.ok(!existsSync(join(skit, 'out.tgz')) && !existsSync(join(skit, 'nested')));
    assert.equal(await hash(), before);
  });

  it('init names commands that work from where it ran: the new directory, and an archive beside it (cliux D5)', async () => {
    const init = await runSf(['skit', 'init', 'my-skit'], { cwd: box.path });
    assert.equal(init.code, 0, init.stderr);
    const next = /^Next: (.*)$/m.exec(init.stdout)?.[1];
    assert.equal(next, 'sf skit validate my-skit, sf skit hash my-skit, sf skit pack my-skit -o my-skit.tgz');
    for (const cmd of next!.split(', ')) {
      const r = await runSf(cmd.split(' ').slice(1), { cwd: box.path });
      assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    }
    assert.ok(existsSync(join(box.path, 'my-skit.tgz')));
    const here = join(box.path, 'here');
    await mkdir(here);
    const inPlace = await runSf(['skit', 'init'], { cwd: here });
    assert.match(inPlace.stdout, /^Next: sf skit validate, sf skit hash, sf skit pack -o \.\.\/here\.tgz$/m);
    assert.equal((await runSf(['skit', 'pack', '-o', '../here.tgz'], { cwd: here })).code, 0);
  });

  it('shows each file that looks like a secret, and still packs (the warning is the user\'s call)', async () => {
    const skit = join(box.path, 'skit');
    assert.equal((await runSf(['skit', 'init', skit])).code, 0);
    await writeTree(skit, { '.env': 'TOKEN=x\n', 'shared/.env.example': 'TOKEN=\n' });
    const r = await runSf(['skit', 'pack', skit, '-o', join(box.path, 'a.tgz')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning +SKIT_LIKELY_SECRET +\.env looks like a secret/);
    assert.doesNotMatch(r.stderr, /\.env\.example looks like/);
    assert.match(r.stdout, /entries\s+6 files/);
  });

  it('refuses an invalid SKIT with exit 1 and writes no archive', async () => {
    const dir = join(box.path, 'not-a-skit');
    await writeTree(dir, { 'notes.txt': 'no README.md frontmatter, no SKILL.md\n' });
    const out = join(box.path, 'x.tgz');
    const human = await runSf(['skit', 'pack', dir, '-o', out]);
    assert.equal(human.code, 1);
    assert.match(human.stderr, /error\[SF_E_VALIDATION\]: .*not-a-skit is not a valid SKIT; nothing was packed\n  hint: /);
    const json = await runSf(['skit', 'pack', dir, '-o', out, '--json']);
    assert.equal(json.code, 1);
    assert.equal(json.stdout, '');
    const { error } = JSON.parse(json.stderr);
    assert.equal(error.code, 'SF_E_VALIDATION');
    assert.ok(error.data.diagnostics.some((d: { severity: string }) => d.severity === 'error'));
    assert.equal(existsSync(out), false);
  });

  it('requires -o', async () => {
    const r = await runSf(['skit', 'pack', box.path]);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /--output|-o/);
  });
});
