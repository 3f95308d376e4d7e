import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import {
  computeExpectation,
  loadErrorCases,
  loadVectors,
  vectorBytes,
  vectorLayout,
  type VectorExpectation,
  type VectorFile,
  type VectorSkill,
} from '../../test-support/hash-vectors.js';
import { isSfError } from '../errors/index.js';
import { hashSkit } from './hash.js';
import { walkTree } from './tree.js';

/**
 * The vectors in fixtures/hash-vectors/ are checked three ways: against the pure core functions,
 * against `hashSkit` over the tree written to disk, and against a second, deliberately naive
 * implementation below (sha256sum for every digest, a byte-wise sort written out by hand).
 */

function writeVectorTree(root: string, files: VectorFile[]): void {
  for (const f of files) {
    const abs = join(root, ...f.path.split('/'));
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, vectorBytes(f));
    chmodSync(abs, f.mode === 'exec' ? 0o755 : 0o644);
  }
}

// ---- the independent implementation -------------------------------------------------------

const sha256sum = (input: Buffer | string): string => execFileSync('sha256sum', { input }).toString('latin1').slice(0, 64);

function naiveByteLess(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

interface NaiveEntry {
  path: string;
  mode: string;
  hash: string;
}

function naiveDigest(header: string, entries: NaiveEntry[]): string {
  const lines = entries
    .map((e) => ({ ...e, path: e.path.normalize('NFC') }))
    .sort((a, b) => naiveByteLess(a.path, b.path))
    .map((e) => e.mode + '\t' + e.hash + '\t' + e.path + '\n');
  return 'sha256:' + sha256sum(header + '\n' + lines.join(''));
}

/** Hashes the files on disk with the sha256sum binary, then builds bundle and skill digests naively. */
function independentHashes(root: string, files: VectorFile[], skills: VectorSkill[]): { bundle: string; skills: string[] } {
  const onDisk = execFileSync('sha256sum', ['-z', '--', ...files.map((f) => f.path)], { cwd: root })
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((line) => line.slice(0, 64));
  const entries: NaiveEntry[] = files.map((f, i) => ({ path: f.path, mode: f.mode, hash: onDisk[i] }));
  const bundle = naiveDigest('forge-skit-bundle/1', entries);
  const skillDigests = skills.map((s) => {
    const nfc = (p: string) => p.normalize('NFC').replace(/\/$/, '');
    const own = entries
      .filter((e) => s.path === '' || nfc(e.path).startsWith(nfc(s.path) + '/'))
      .map((e) => ({ ...e, path: s.path === '' ? e.path : nfc(e.path).slice(nfc(s.path).length + 1) }));
    const mapped: NaiveEntry[] = [];
    for (const m of s.shared) {
      for (const e of entries) {
        const p = nfc(e.path);
        if (p === nfc(m.from)) mapped.push({ ...e, path: nfc(m.to) });
        else if (p.startsWith(nfc(m.from) + '/')) mapped.push({ ...e, path: nfc(m.to) + p.slice(nfc(m.from).length) });
      }
    }
    return naiveDigest('forge-skit-skill/1', [...own, ...mapped]);
  });
  return { bundle, skills: skillDigests };
}

// ---- the checks ----------------------------------------------------------------------------

describe('hash test vectors (fixtures/hash-vectors)', () => {
  const vectors = loadVectors();

  it('cover a non-ASCII path, an exec file, an empty file, and shared mappings of a directory and of a file', () => {
    const all = vectors.flatMap(([, v]) => v.files);
    const mappings = vectors.flatMap(([, v]) => v.skills.flatMap((s) => s.shared.map((m) => ({ m, files: v.files }))));
    assert.ok(all.some((f) => /[^\x00-\x7f]/.test(f.path)));
    assert.ok(all.some((f) => f.mode === 'exec'));
    assert.ok(all.some((f) => vectorBytes(f).length === 0));
    assert.ok(mappings.some(({ m, files }) => files.some((f) => f.path === m.from)), 'a single-file mapping');
    assert.ok(mappings.some(({ m, files }) => files.some((f) => f.path.startsWith(m.from.replace(/\/$/, '') + '/'))), 'a directory mapping');
    assert.ok(vectors.length >= 4);
  });

  for (const [name, vector] of vectors) {
    describe(name, () => {
      const expected = vector.expected as VectorExpectation;

      it('has an expectation that the core functions reproduce', () => {
        assert.ok(expected, `${name} has no "expected" block; run fixtures/hash-vectors/update-expected.ts`);
        assert.deepEqual(computeExpectation(vector), expected);
      });

      it('matches an independent implementation (sha256sum + naive listing) and hashSkit on disk', async () => {
        const dir = await tempDir('sf-hash-vector-');
        try {
          writeVectorTree(dir.path, vector.files);
          const independent = independentHashes(dir.path, vector.files, vector.skills);
          assert.equal(independent.bundle, expected.bundle.hash, 'bundle (independent)');
          assert.deepEqual(independent.skills, expected.skills.map((s) => s.hash), 'skills (independent)');

          // the layout a validator would build: files found by walking the real tree
          const walked = await walkTree(dir.path);
          const layout = { ...vectorLayout(vector, dir.path), files: walked.files };
          for (const threads of [1, 3]) {
            const got = await hashSkit(dir.path, layout, { threads });
            assert.equal(got.bundle, expected.bundle.hash);
            assert.deepEqual(got.files, expected.files);
            assert.deepEqual(got.skills.map((s) => [s.name, s.hash]), expected.skills.map((s) => [s.name, s.hash]));
          }
        } finally {
          await dir.cleanup();
        }
      });
    });
  }

  it('single-skill: the skill projection has the bundle paths under the skill domain', () => {
    const [, v] = vectors.find(([n]) => n === 'single-skill.json')!;
    assert.equal(v.expected!.skills[0].listing, v.expected!.bundle.listing);
    assert.notEqual(v.expected!.skills[0].hash, v.expected!.bundle.hash);
  });

  it('unicode: the NFD file name hashes as its NFC form', () => {
    const [, v] = vectors.find(([n]) => n === 'unicode.json')!;
    assert.ok(v.files.some((f) => f.path !== f.path.normalize('NFC')), 'the vector keeps an NFD input path');
    assert.ok(v.expected!.files.every((f) => f.path === f.path.normalize('NFC')));
  });

  describe('error cases (errors.json)', () => {
    for (const c of loadErrorCases()) {
      it(`${c.error}: ${c.description}`, async () => {
        assert.throws(() => computeExpectation(c), (e: unknown) => isSfError(e) && e.code === c.error);
        const dir = await tempDir('sf-hash-error-');
        try {
          writeVectorTree(dir.path, c.files);
          const layout = { ...vectorLayout(c, dir.path), files: (await walkTree(dir.path)).files };
          await assert.rejects(hashSkit(dir.path, layout), (e: unknown) => isSfError(e) && e.code === c.error);
        } finally {
          await dir.cleanup();
        }
      });
    }
  });
});
