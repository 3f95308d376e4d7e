import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, writeTree, type FixtureTree } from '../../test-support/index.js';
import { isSfError } from '../errors/index.js';
import { walkTree } from '../skit/tree.js';
import { packTree, packTreeTar } from './pack.js';
import { unpackArchive } from './unpack.js';

const TREE: FixtureTree = {
  'README.md': '---\nskit: 1\nid: acme/tools\n---\n# Tools\n',
  'skills/lint/SKILL.md': '---\nname: lint\ndescription: Lint.\n---\n',
  'skills/lint/scripts/run.sh': { content: '#!/bin/sh\necho lint\n', mode: 0o755 },
  'skills/café/SKILL.md': 'utf-8 name: needs a pax path record\n',
  [`skills/${'deep-directory/'.repeat(8)}notes.md`]: 'a path longer than 100 bytes\n',
  'shared/data.bin': Buffer.from([0, 1, 2, 255, 254]),
};

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function pack(root: string): Promise<Buffer> {
  return packTree(root, (await walkTree(root)).files);
}

/** Writes TREE in reverse order, with odd permissions, mtimes and umask, to show none of it matters. */
async function writeScrambled(root: string): Promise<void> {
  const previous = process.umask(0o077);
  try {
    for (const [rel, spec] of Object.entries(TREE).reverse()) {
      const abs = join(root, ...rel.split('/'));
      await mkdir(join(abs, '..'), { recursive: true });
      const exec = typeof spec === 'object' && !Buffer.isBuffer(spec);
      await writeFile(abs, exec ? spec.content : spec);
      await chmod(abs, exec ? 0o700 : 0o600);
      await utimes(abs, new Date('2031-05-06T07:08:09Z'), new Date('2031-05-06T07:08:09Z'));
    }
  } finally {
    process.umask(previous);
  }
}

describe('packTree (deterministic release archives)', () => {
  let box: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    box = await tempDir('sf-pack-');
  });
  afterEach(async () => box.cleanup());

  it('packs the same tree to the same bytes, whatever mtimes, umask, permissions or creation order', async () => {
    const a = join(box.path, 'a');
    const b = join(box.path, 'b');
    await writeTree(a, TREE);
    await writeScrambled(b);
    const first = await pack(a);
    assert.ok(first.equals(await pack(a)), 'packing twice differs');
    assert.ok(first.equals(await pack(b)), 'a scrambled copy of the tree packs differently');
  });

  it('ignores the order of the file list it is given', async () => {
    await writeTree(box.path, TREE);
    const files = (await walkTree(box.path)).files;
    assert.ok((await packTree(box.path, files)).equals(await packTree(box.path, [...files].reverse())));
  });

  it('writes sorted ustar entries with mtime 0, uid/gid 0, no owner names and modes 0644/0755', async () => {
    await writeTree(box.path, TREE);
    const tar = await packTreeTar(box.path, (await walkTree(box.path)).files);
    const names: string[] = [];
    let paxPath: string | undefined;
    for (let at = 0; at + 512 <= tar.length; ) {
      const h = tar.subarray(at, at + 512);
      if (h.every((x) => x === 0)) break;
      const field = (o: number, n: number) => h.toString('utf8', o, o + n).replace(/\0.*$/s, '');
      const size = parseInt(field(124, 12), 8);
      if (field(156, 1) === 'x') paxPath = /\d+ path=(.*)\n/.exec(tar.toString('utf8', at + 512, at + 512 + size))?.[1];
      assert.equal(field(257, 6), 'ustar');
      assert.equal(parseInt(field(136, 12), 8), 0, 'mtime');
      assert.equal(parseInt(field(108, 8), 8), 0, 'uid');
      assert.equal(parseInt(field(116, 8), 8), 0, 'gid');
      assert.equal(field(265, 32) + field(297, 32), '', 'uname/gname');
      if (field(156, 1) === '0') {
        const prefix = field(345, 155);
        names.push(paxPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100)));
        paxPath = undefined;
        assert.ok(['644', '755'].includes(field(100, 8).replace(/^0+/, '').trim()), field(100, 8));
      }
      at += 512 + Math.ceil(size / 512) * 512;
    }
    assert.equal(names.length, Object.keys(TREE).length);
    assert.deepEqual(names, [...names].sort(), 'entries are sorted');
    assert.ok(tar.subarray(-1024).every((x) => x === 0), 'ends with two zero blocks');
    const tgz = await packTree(box.path, (await walkTree(box.path)).files);
    assert.deepEqual([...tgz.subarray(0, 10)], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3], 'fixed gzip header');
  });

  it('round-trips: pack then unpack gives the same files, bytes and mode classes', async () => {
    const src = join(box.path, 'src');
    await writeTree(src, TREE);
    const archive = join(box.path, 'release.tgz');
    await writeFile(archive, await pack(src));
    const dest = join(box.path, 'dest');
    const { files } = await unpackArchive(archive, dest);
    const before = (await walkTree(src)).files;
    const after = (await walkTree(dest)).files;
    assert.deepEqual(after.map((f) => [f.path, f.mode, f.size]), before.map((f) => [f.path, f.mode, f.size]));
    assert.deepEqual(files.map((f) => [f.path, f.mode, f.size]), before.map((f) => [f.path, f.mode, f.size]));
    for (const f of before) assert.ok((await readFile(join(dest, f.path))).equals(await readFile(f.abs)), f.path);
    assert.equal((await stat(join(dest, 'skills/lint/scripts/run.sh'))).mode & 0o777, 0o755);
    assert.equal((await stat(join(dest, 'README.md'))).mode & 0o777, 0o644);
  });

  it('changes when a byte, a mode class or a path changes', async () => {
    await writeTree(box.path, TREE);
    const base = sha256(await pack(box.path));
    const readme = join(box.path, 'README.md');
    await writeFile(readme, '---\nskit: 1\nid: acme/tools\n---\n# Tooks\n');
    const byte = sha256(await pack(box.path));
    await chmod(readme, 0o755);
    const mode = sha256(await pack(box.path));
    const files = (await walkTree(box.path)).files.map((f) => (f.path === 'shared/data.bin' ? { ...f, path: 'shared/data.bim' } : f));
    await writeFile(join(box.path, 'shared/data.bim'), Buffer.from([0, 1, 2, 255, 254]));
    const path = sha256(await packTree(box.path, files.filter((f) => f.path !== 'shared/data.bin')));
    assert.equal(new Set([base, byte, mode, path]).size, 4);
  });

  it('is pinned by a golden hash (tar and tgz), so any change to the format or to zlib output shows up', async () => {
    await writeTree(box.path, TREE);
    const files = (await walkTree(box.path)).files;
    assert.equal(sha256(await packTreeTar(box.path, files)), GOLDEN_TAR);
    assert.equal(sha256(await packTree(box.path, files)), GOLDEN_TGZ);
  });

  it('packs NFD file names (as macOS may store them) like their NFC twins', async () => {
    const nfc = join(box.path, 'nfc');
    const nfd = join(box.path, 'nfd');
    await writeTree(nfc, { 'README.md': 'r', 'skills/caf\u00e9/SKILL.md': 's' });
    await writeTree(nfd, { 'README.md': 'r', 'skills/cafe\u0301/SKILL.md': 's' });
    assert.ok((await pack(nfc)).equals(await pack(nfd)));
  });

  it('is readable by GNU tar with the same names and modes', async function () {
    if (spawnSync('tar', ['--version']).status !== 0) this.skip();
    const src = join(box.path, 'src');
    await writeTree(src, TREE);
    const archive = join(box.path, 'r.tgz');
    await writeFile(archive, await pack(src));
    const listing = spawnSync('tar', ['-tvzf', archive], { encoding: 'utf8' });
    assert.equal(listing.status, 0, listing.stderr);
    const lines = listing.stdout.trim().split('\n');
    assert.equal(lines.length, Object.keys(TREE).length);
    assert.ok(lines.some((l) => l.startsWith('-rwxr-xr-x 0/0') && l.endsWith('skills/lint/scripts/run.sh')));
    assert.ok(lines.some((l) => l.endsWith('skills/café/SKILL.md')));
  });

  it('refuses unsafe names, collisions and archives that unpack would refuse', async () => {
    await writeTree(box.path, { 'a.txt': 'a', 'A.txt': 'b', 'big.bin': Buffer.alloc(4096) });
    const f = (path: string) => ({ path, mode: 'file' as const });
    await assert.rejects(packTree(box.path, [f('../a.txt')]), (e) => isSfError(e, 'SF_E_UNSAFE_PATH'));
    await assert.rejects(packTree(box.path, [f('a.txt'), f('A.txt')]), (e) => isSfError(e, 'SF_E_PATH_COLLISION'));
    await assert.rejects(packTree(box.path, [f('big.bin')], { limits: { maxEntrySize: 1024 } }), (e) => isSfError(e, 'SF_E_ARCHIVE_LIMIT'));
    await assert.rejects(packTree(box.path, [f('a.txt'), f('big.bin')], { limits: { maxEntries: 1 } }), (e) => isSfError(e, 'SF_E_ARCHIVE_LIMIT'));
    // 3 MiB of zeros compresses ~1000x: with the ratio floor lowered to 1 MiB, the read-back check refuses it like unpack would
    await writeFile(join(box.path, 'zeros.bin'), Buffer.alloc(3 * 1024 * 1024));
    await assert.rejects(packTree(box.path, [f('zeros.bin')], { limits: { ratioCheckMinBytes: 1024 * 1024 } }), (e) => isSfError(e, 'SF_E_ARCHIVE_LIMIT') && /refused when unpacked/.test(e.message));
  });

  it('packs a very compressible SKIT with the default limits, and the archive unpacks (the ratio applies above 64 MiB)', async () => {
    const table = 'id,value,flag\n' + '0,0,false\n'.repeat(200_000);
    await writeTree(box.path, { 'SKILL.md': '---\nname: kit\ndescription: d\n---\n', 'data/table.csv': table, 'zeros.bin': Buffer.alloc(3 * 1024 * 1024) });
    const tgz = await packTree(box.path, (await walkTree(box.path)).files);
    assert.ok(tgz.length * 100 < table.length, `compressed to ${tgz.length} bytes`);
    const out = await tempDir('sf-pack-out-');
    try {
      const result = await unpackArchive(tgz, join(out.path, 'dest'));
      assert.deepEqual(result.files.map((f) => f.path), ['SKILL.md', 'data/table.csv', 'zeros.bin']);
    } finally {
      await out.cleanup();
    }
  });
});

// Recompute with `walkTree` + `packTreeTar` / `packTree` over TREE only when the archive format changes on purpose.
const GOLDEN_TAR = '27cf7d31522bd7614a24dfa349e0dabfad6d19fe1bbd5c284bef5971cb3a8cbf';
const GOLDEN_TGZ = '1bf0a22ae320990f4da020bc6eebb257d8ecab1923aae178b5d2bd036f9f7db1';
