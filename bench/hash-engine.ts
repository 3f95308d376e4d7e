import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { hashSkit } from '../core/skit/hash.js';
import { walkTreeSync } from '../core/skit/tree-sync.js';

/**
 * Child process for bench/hash.bench.ts (run from dist/bench/): the hashing engine alone — walk,
 * parallel read + sha256 and the bundle listing — without the CLI framework or validation, so
 * the bench can show how the end-to-end time of `sf skit hash` splits. Like `sf skit hash` (see
 * cli/sf.cts), it runs without V8's optimizing compiler.
 */
setFlagsFromString('--no-opt');
const root = resolve(process.argv[2] ?? '.');
const { files } = walkTreeSync(root);
const hashes = await hashSkit(root, { id: 'bench/engine', provisional: false, skills: [], files });
process.stdout.write(JSON.stringify(hashes, null, 2) + '\n');
