import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { benchCacheDir, seededRandom } from './support.js';

/**
 * The input of bench/hash.bench.ts: a valid eight-skill SKIT of exactly 2,000 files and 256 MiB with
 * varied (log-uniform) file sizes, generated deterministically from a seed and cached under
 * os.tmpdir() between runs.
 */

export const TREE_FILES = 2000;
export const TREE_BYTES = 256 * 1024 * 1024;
const SEED = 0x5eed_2026;
const VERSION = 3;
// eight skills keep each projection (own files + the shared mapping) under the default 64 MiB skill quota
const SKILLS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

export interface HashTree {
  /** the SKIT root */
  root: string;
  /** every file, SKIT-relative, in generation order */
  files: string[];
  bytes: number;
}

interface Marker {
  version: number;
  seed: number;
  files: string[];
  bytes: number;
}

/** Returns the cached tree, generating it first when it is missing or from another version. */
export async function ensureHashTree(): Promise<HashTree & { generated: boolean }> {
  const cache = await benchCacheDir('hash-tree');
  const root = join(cache, 'skit');
  const markerPath = join(cache, 'complete.json');
  const marker = await readMarker(markerPath);
  if (marker && marker.version === VERSION && marker.seed === SEED) return { root, files: marker.files, bytes: marker.bytes, generated: false };

  await rm(markerPath, { force: true });
  await rm(root, { recursive: true, force: true });
  const contents = planTree();
  for (const [rel, data] of contents) {
    const abs = join(root, ...rel.split('/'));
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, data);
  }
  const files = contents.map(([rel]) => rel);
  const bytes = contents.reduce((sum, [, data]) => sum + data.length, 0);
  await writeFile(markerPath, JSON.stringify({ version: VERSION, seed: SEED, files, bytes } satisfies Marker));
  return { root, files, bytes, generated: true };
}

async function readMarker(path: string): Promise<Marker | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Marker;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Relative path -> bytes for the whole tree; sizes sum to TREE_BYTES exactly. */
function planTree(): [string, Buffer][] {
  const random = seededRandom(SEED);
  const descriptors: [string, Buffer][] = [['README.md', Buffer.from(readme())]];
  for (const name of SKILLS) descriptors.push([`skills/${name}/SKILL.md`, Buffer.from(skillMd(name))]);

  const dataCount = TREE_FILES - descriptors.length;
  const dataBytes = TREE_BYTES - descriptors.reduce((sum, [, b]) => sum + b.length, 0);
  const sizes = logUniformSizes(random, dataCount, dataBytes);
  const pool = randomPool(random, Math.max(...sizes) + 64);
  const data: [string, Buffer][] = sizes.map((size, i) => {
    // 5% under shared/, the rest spread over the skills' own folders
    const rel =
      i % 20 === 0
        ? `shared/reference/part-${String(i).padStart(4, '0')}.bin`
        : `skills/${SKILLS[i % SKILLS.length]}/assets/d${String(i % 17).padStart(2, '0')}/file-${String(i).padStart(4, '0')}.bin`;
    const offset = Math.floor(random() * 64);
    const bytes = Buffer.from(pool.subarray(offset, offset + size));
    // distinct files, and never a `#!` first line (that would be an undeclared executable)
    if (size > 0) bytes.writeUInt8(0x42, 0);
    if (size >= 8) bytes.writeUInt32BE(i, 4);
    return [rel, bytes];
  });
  return [...descriptors, ...data];
}

/** `count` log-uniform sizes (64 B .. 4 MiB before scaling), scaled so they sum to `total`. */
function logUniformSizes(random: () => number, count: number, total: number): number[] {
  const lo = Math.log(64);
  const hi = Math.log(4 * 1024 * 1024);
  const raw = Array.from({ length: count }, () => Math.exp(lo + random() * (hi - lo)));
  const scale = total / raw.reduce((a, b) => a + b, 0);
  const sizes = raw.map((r) => Math.max(1, Math.floor(r * scale)));
  const largest = sizes.indexOf(Math.max(...sizes));
  sizes[largest] += total - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}

function randomPool(random: () => number, bytes: number): Buffer {
  const words = new Uint32Array(Math.ceil(bytes / 4));
  for (let i = 0; i < words.length; i++) words[i] = (random() * 4294967296) >>> 0;
  return Buffer.from(words.buffer, 0, bytes);
}

function readme(): string {
  const skills = SKILLS.map(
    (name) => `  - name: ${name}
    path: skills/${name}
    default_enabled: true
    trigger_modes: [explicit, implicit]
    mutation_scopes: [none]
    capabilities: []
    approval_expectations: []
    expected_outputs: []
    shared:
      - from: shared/reference
        to: references/shared`,
  ).join('\n');
  return `---
skit: 1
id: bench/hash-tree
skills:
${skills}
capabilities:
  executables: []
  hooks: []
  mcp: []
---

# hash-tree

A generated SKIT for \`npm run bench -- hash\`: ${TREE_FILES} files, 256 MiB.
`;
}

function skillMd(name: string): string {
  return `---
name: ${name}
description: Benchmark skill ${name}. Use when measuring how fast sf skit hash reads a large SKIT.
---

# ${name}

Generated data lives in assets/; shared reference data is mapped to references/shared.
`;
}
