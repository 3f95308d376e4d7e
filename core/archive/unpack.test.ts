import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createGzip } from 'node:zlib';
import fc from 'fast-check';
import { fixturesDir, tempDir, writeTree } from '../../test-support/index.js';
import { isSfError, type SfError } from '../errors/index.js';
import { walkTree } from '../skit/tree.js';
import { resolveArchiveLimits } from './limits.js';
import { packTree } from './pack.js';
import { readArchiveEntries } from './read-entries.js';
import { unpackArchive } from './unpack.js';

const ARCHIVE_CODES = ['SF_E_ARCHIVE_UNSAFE', 'SF_E_ARCHIVE_MALFORMED', 'SF_E_ARCHIVE_LIMIT', 'SF_E_ARCHIVE_FORMAT'];

async function packFixture(root: string, tree: Parameters<typeof writeTree>[1]): Promise<Buffer> {
  await writeTree(root, tree);
  return packTree(root, (await walkTree(root)).files);
}

/** Tar entries of `sizes` zero bytes each (zeros0.bin, ...), gzipped by zlib as a real attacker would: ~1000x smaller. */
async function zlibBomb(sizes: number[]): Promise<Buffer> {
  const chunk = Buffer.alloc(1 << 20);
  async function* source() {
    for (const [i, size] of sizes.entries()) {
      yield tarHeader(`zeros${i}.bin`, size);
      for (let left = size; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
    }
    yield Buffer.alloc(1024);
  }
  return buffer(Readable.from(source()).pipe(createGzip({ level: 9 })));
}

/** A ustar header for a regular file of `size` bytes (a multiple of 512, so no padding follows). */
function tarHeader(name: string, size: number): Buffer {
  const head = Buffer.alloc(512);
  head.write(name, 0);
  head.write('0000644\0', 100);
  head.write('0000000\0', 108);
  head.write('0000000\0', 116);
  head.write(size.toString(8).padStart(11, '0') + '\0', 124);
  head.write('00000000000\0', 136);
  head.write('0', 156);
  head.write('ustar\u000000', 257);
  head.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of head) sum += b;
  head.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return head;
}

describe('unpackArchive', () => {
  let box: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    box = await tempDir('sf-unpack-');
  });
  afterEach(async () => box.cleanup());

  it('creates the destination by one rename and leaves no staging directory behind', async () => {
    const tgz = await packFixture(join(box.path, 'src'), { 'README.md': 'r', 'skills/a/SKILL.md': 's' });
    const out = join(box.path, 'out');
    await mkdir(out);
    const result = await unpackArchive(tgz, join(out, 'dest'));
    assert.equal(result.format, 'tar.gz');
    assert.deepEqual(result.files.map((f) => f.path), ['README.md', 'skills/a/SKILL.md']);
    assert.deepEqual(await readdir(out), ['dest']);
    assert.equal(await readFile(join(out, 'dest', 'skills', 'a', 'SKILL.md'), 'utf8'), 's');
  });

  it('normalizes modes to 0644/0755 for files and 0755 for directories, whatever the umask', async () => {
    const tgz = await packFixture(join(box.path, 'src'), { 'README.md': 'r', 'bin/run': { content: '#!/bin/sh\n', mode: 0o700 } });
    const previous = process.umask(0o077);
    try {
      await unpackArchive(tgz, join(box.path, 'dest'));
    } finally {
      process.umask(previous);
    }
    const mode = async (p: string) => (await stat(join(box.path, 'dest', p))).mode & 0o7777;
    assert.equal(await mode('README.md'), 0o644);
    assert.equal(await mode('bin/run'), 0o755);
    assert.equal(await mode('bin'), 0o755);
    assert.equal(await mode('.'), 0o755);
  });

  it('refuses an existing destination and a missing parent without touching either', async () => {
    const tgz = await packFixture(join(box.path, 'src'), { 'README.md': 'r' });
    await mkdir(join(box.path, 'taken'));
    await writeFile(join(box.path, 'taken', 'mine.txt'), 'keep');
    await assert.rejects(unpackArchive(tgz, join(box.path, 'taken')), (e) => isSfError(e, 'SF_E_CONFLICT'));
    assert.deepEqual(await readdir(join(box.path, 'taken')), ['mine.txt']);
    await assert.rejects(unpackArchive(tgz, join(box.path, 'missing', 'dest')), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
    await assert.rejects(unpackArchive(join(box.path, 'no-such.tgz'), join(box.path, 'dest')), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
    assert.deepEqual((await readdir(box.path)).sort(), ['src', 'taken']);
  });

  it("strips a single wrapper directory with strip 'auto' or 1, and keeps it with 0", async () => {
    const tgz = await packFixture(join(box.path, 'src'), { 'repo-abc/README.md': 'r', 'repo-abc/skills/a/SKILL.md': 's' });
    const auto = await unpackArchive(tgz, join(box.path, 'auto'), { strip: 'auto' });
    assert.equal(auto.stripped, 'repo-abc');
    assert.deepEqual(auto.files.map((f) => f.path), ['README.md', 'skills/a/SKILL.md']);
    assert.equal(await readFile(join(box.path, 'auto', 'README.md'), 'utf8'), 'r');
    assert.equal((await unpackArchive(tgz, join(box.path, 'one'), { strip: 1 })).stripped, 'repo-abc');
    const none = await unpackArchive(tgz, join(box.path, 'none'));
    assert.deepEqual(none.files.map((f) => f.path), ['repo-abc/README.md', 'repo-abc/skills/a/SKILL.md']);
    assert.deepEqual((await readdir(box.path)).sort(), ['auto', 'none', 'one', 'src']);
  });

  it('stops a 180 MiB zlib gzip bomb (three files under the per-file limit, under the total) at the 64 MiB ratio floor, and removes staging', async () => {
    const MiB = 1024 * 1024;
    const bomb = await zlibBomb([60 * MiB, 60 * MiB, 60 * MiB]);
    assert.ok(bomb.length < MiB, `bomb is ${bomb.length} bytes`);
    await assert.rejects(unpackArchive(bomb, join(box.path, 'dest')), (e: SfError) => {
      assert.equal(e.code, 'SF_E_ARCHIVE_LIMIT');
      assert.equal(e.data?.limit, 'maxCompressionRatio');
      assert.ok((e.data?.inflated as number) < 68 * MiB, `inflated ${String(e.data?.inflated)} bytes before stopping`);
      return true;
    });
    assert.deepEqual(await readdir(box.path), []);
  });

  it('stops a 60 MiB gzip bomb after a few MiB when the ratio floor is lowered', async () => {
    const bomb = await zlibBomb([60 * 1024 * 1024]);
    await assert.rejects(unpackArchive(bomb, join(box.path, 'dest'), { limits: { ratioCheckMinBytes: 1024 * 1024 } }), (e: SfError) => {
      assert.equal(e.code, 'SF_E_ARCHIVE_LIMIT');
      assert.ok((e.data?.inflated as number) < 4 * 1024 * 1024, `inflated ${String(e.data?.inflated)} bytes before stopping`);
      return true;
    });
    assert.deepEqual(await readdir(box.path), []);
  });

  it('unpacks a small SKIT that compresses hundreds of times (a repetitive table is no bomb)', async () => {
    const table = 'id,value,flag\n' + '0,0,false\n'.repeat(200_000);
    const tgz = await packFixture(join(box.path, 'src'), { 'SKILL.md': '---\nname: src\ndescription: d\n---\n', 'data/table.csv': table });
    assert.ok(tgz.length * 100 < table.length, `compressed to ${tgz.length} bytes`);
    const result = await unpackArchive(tgz, join(box.path, 'dest'));
    assert.deepEqual(result.files.map((f) => f.path), ['SKILL.md', 'data/table.csv']);
    assert.equal(await readFile(join(box.path, 'dest', 'data', 'table.csv'), 'utf8'), table);
  });

  it('accepts larger archives when limits are raised, and rejects nonsense limits', async () => {
    const tgz = await packFixture(join(box.path, 'src'), { 'README.md': 'r', 'big.bin': Buffer.alloc(3000, 1) });
    await assert.rejects(unpackArchive(tgz, join(box.path, 'a'), { limits: { maxEntrySize: 1000 } }), (e) => isSfError(e, 'SF_E_ARCHIVE_LIMIT'));
    assert.equal((await unpackArchive(tgz, join(box.path, 'b'), { limits: { maxEntrySize: 4000 } })).files.length, 2);
    assert.throws(() => resolveArchiveLimits({ maxEntries: -1 }), (e) => isSfError(e, 'SF_E_USAGE'));
    assert.throws(() => resolveArchiveLimits({ maxEntries: 1.5 }), (e) => isSfError(e, 'SF_E_USAGE'));
    assert.throws(() => resolveArchiveLimits({ nope: 1 } as never), (e) => isSfError(e, 'SF_E_USAGE'));
  });

  it('never fails with anything but an archive error on corrupted archives (fuzz)', async () => {
    const seeds = await Promise.all(['valid.tar', 'valid.tgz', 'valid.zip'].map((f) => readFile(join(fixturesDir, 'archives', 'valid', f))));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: seeds.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (which, flips, cut) => {
          const bytes = Buffer.from(seeds[which]);
          for (const [at, value] of flips) bytes[at % bytes.length] = value;
          const input = cut === undefined ? bytes : bytes.subarray(0, cut % bytes.length);
          try {
            await readArchiveEntries(input);
          } catch (e) {
            if (!isSfError(e) || !ARCHIVE_CODES.includes(e.code)) throw e;
          }
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });
});
