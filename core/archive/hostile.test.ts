import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixturesDir, repoRoot, tempDir } from '../../test-support/index.js';
import { isSfError } from '../errors/index.js';
import { readArchiveEntries } from './read-entries.js';
import { unpackArchive, type UnpackOptions } from './unpack.js';

interface HostileEntry {
  file: string;
  attack: string;
  expect: string;
  options?: UnpackOptions;
  sha256: string;
}

interface ValidEntry {
  file: string;
  options?: UnpackOptions;
  files: { path: string; mode: 'file' | 'exec'; sha256: string }[];
  sha256: string;
}

const archivesDir = join(fixturesDir, 'archives');
const hostile = JSON.parse(await readFile(join(archivesDir, 'hostile', 'manifest.json'), 'utf8')).archives as HostileEntry[];
const valid = JSON.parse(await readFile(join(archivesDir, 'valid', 'manifest.json'), 'utf8')).archives as ValidEntry[];
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every path below `root` with its kind, mode and content hash: a fingerprint of the sandbox. */
async function snapshot(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(join(root, rel))).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    const st = await lstat(join(root, path));
    if (st.isDirectory()) out.push(`${path}/ ${(st.mode & 0o7777).toString(8)}`, ...(await snapshot(root, path)));
    else out.push(`${path} ${(st.mode & 0o7777).toString(8)} ${st.isFile() ? sha256(await readFile(join(root, path))) : 'special'}`);
  }
  return out;
}

/** sandbox/outside/keep.txt and sandbox/l1/l2/l3/parent/keep.txt; the destination is parent/dest, so ../ targets stay inside. */
async function sandbox(root: string): Promise<string> {
  const parent = join(root, 'l1', 'l2', 'l3', 'parent');
  await mkdir(parent, { recursive: true });
  await mkdir(join(root, 'outside'));
  await writeFile(join(root, 'outside', 'keep.txt'), 'outside\n');
  await writeFile(join(parent, 'keep.txt'), 'parent\n');
  return join(parent, 'dest');
}

// absolute targets named by the corpus; they must never appear on the real filesystem
const ABSOLUTE_TARGETS = ['/etc/sf-evil.conf', '/tmp/sf-evil.txt', '/sf-evil.txt'];

describe('hostile archive corpus (fixtures/archives/hostile)', () => {
  it('has at least 30 archives across tar, tgz and zip, each matching its manifest hash', async () => {
    assert.ok(hostile.length >= 30, `only ${hostile.length} archives`);
    for (const ext of ['.tar', '.tgz', '.zip']) assert.ok(hostile.some((h) => h.file.endsWith(ext)), `no ${ext} archive`);
    for (const h of hostile) assert.equal(sha256(await readFile(join(archivesDir, 'hostile', h.file))), h.sha256, h.file);
  });

  for (const h of hostile) {
    it(`refuses ${h.file} (${h.attack}) with ${h.expect}, writing nothing outside staging`, async () => {
      const box = await tempDir('sf-hostile-');
      try {
        const dest = await sandbox(box.path);
        const before = await snapshot(box.path);
        const archive = join(archivesDir, 'hostile', h.file);
        await assert.rejects(unpackArchive(archive, dest, h.options), (e: unknown) => {
          assert.ok(isSfError(e), `not an SfError: ${String(e)}`);
          assert.equal(e.code, h.expect, `${h.file}: got ${e.code}: ${e.message}`);
          assert.ok(e.hint, 'refusal has a hint');
          if (e.location?.file) assert.doesNotMatch(e.location.file, /[\u0000-\u001f\u202e]/, 'entry name is sanitized');
          return true;
        });
        assert.equal(existsSync(dest), false, 'destination must not exist');
        assert.deepEqual(await snapshot(box.path), before, 'sandbox changed: something was written outside staging or staging was left behind');
        for (const target of ABSOLUTE_TARGETS) assert.equal(existsSync(target), false, `${target} was created`);
        // the in-memory reader used by the hub applies exactly the same checks
        await assert.rejects(readArchiveEntries(await readFile(archive), h.options), (e: unknown) => isSfError(e) && e.code === h.expect);
      } finally {
        await box.cleanup();
      }
    });
  }
});

describe('valid control archives (fixtures/archives/valid)', () => {
  for (const v of valid) {
    it(`unpacks ${v.file} to exactly the expected files and modes`, async () => {
      const box = await tempDir('sf-valid-');
      try {
        const dest = join(box.path, 'dest');
        const archive = join(archivesDir, 'valid', v.file);
        const { files } = await unpackArchive(archive, dest, v.options);
        const got = await Promise.all(files.map(async (f) => {
          const st = await lstat(join(dest, f.path));
          assert.equal(st.mode & 0o777, f.mode === 'exec' ? 0o755 : 0o644, f.path);
          return { path: f.path, mode: f.mode, sha256: sha256(await readFile(join(dest, f.path))) };
        }));
        const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
        assert.deepEqual(got.sort(byPath), [...v.files].sort(byPath));
        assert.deepEqual((await readdir(box.path)).sort(), ['dest'], 'staging directory removed');
        const memory = await readArchiveEntries(await readFile(archive), v.options);
        assert.deepEqual(memory.files.map((f) => ({ path: f.path, mode: f.mode, sha256: sha256(f.data) })).sort(byPath), [...v.files].sort(byPath));
      } finally {
        await box.cleanup();
      }
    });
  }
});

describe('hostile corpus generator', () => {
  it('reproduces the checked-in archives and manifests byte for byte', async () => {
    const out = await tempDir('sf-corpus-');
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', join(archivesDir, 'make-hostile.ts'), '--out', out.path], {
        cwd: repoRoot,
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      for (const set of ['hostile', 'valid']) {
        const names = (await readdir(join(archivesDir, set))).sort();
        assert.deepEqual((await readdir(join(out.path, set))).sort(), names, `${set}: file list differs`);
        for (const name of names) {
          const fresh = await readFile(join(out.path, set, name));
          assert.ok(fresh.equals(await readFile(join(archivesDir, set, name))), `${set}/${name} differs after regeneration`);
        }
      }
    } finally {
      await out.cleanup();
    }
  });
});
