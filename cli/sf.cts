#!/usr/bin/env node
/**
 * `sf` (dist/cli/sf.cjs). `npm run build` also bundles the CLI (cli/run.ts and everything it
 * reaches) into one CommonJS script, dist/cli/sf-bundle.cjs, with a V8 code cache trained on real
 * commands (dist/cli/sf-bundle.cache): Node 20 has no compile cache of its own, and resolving,
 * reading and compiling hundreds of module files used to be most of every command's run time.
 * The most frequent commands run smaller bundles of their own (cli/entries.cts): `sf skit hash`
 * and `sf skit validate` one a quarter of the size, `sf add skit` and the library commands one
 * about 60%.
 *
 * This file starts the bundle when the bundle is at least as new as this file; otherwise (a plain
 * `npx tsc -p .` rewrote this file after the last bundle, so the bundle may hold older code) it
 * runs the modules tsc emitted. The code cache is used only when its header names this exact
 * bundle (CRC-32 of its content and length; V8 itself checks little more than the length) and
 * this Node (the build trains it with the Node that runs the build); a missing, stale or foreign
 * cache only costs speed. The CRC is computed only when the bundle changed after its cache was
 * written (see bundleContentId). SF_CODE_CACHE_WRITE=1 (the build's training runs) rewrites it.
 *
 * This file is CommonJS: a module entry point would start Node's ESM loader first (~4 ms).
 */
import { readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { entryFor } from './entries.cjs';

const CACHE_MAGIC = `sf-code-cache 2 ${process.version} ${process.arch}`;

/**
 * Runs the bundle for this command line (dist/cli/sf-bundle.cjs, sf-skit-read.cjs or sf-library.cjs, see cli/entries.cts) if it is
 * there and current; false when the modules must run instead.
 */
function startBundle(): boolean {
  const self = __filename;
  const here = dirname(self);
  const name = entryFor(process.argv);
  const bundlePath = join(here, `${name}.cjs`);
  const bundleStat = statSync(bundlePath, { throwIfNoEntry: false });
  if (!bundleStat || bundleStat.mtimeMs < statSync(self).mtimeMs) return false;
  // `sf skit hash` hashes on every core; its workers boot (30-40 ms) while the bundle loads
  const hashing = process.argv[2] === 'skit' && process.argv[3] === 'hash';
  if (hashing) startHashWorkers(join(here, 'hash-worker.cjs'));

  const bytes = readFileSync(bundlePath);
  // esbuild writes ASCII only (non-ASCII is escaped), so latin1 decodes it exactly and fastest
  const source = bytes.toString('latin1');
  const cachePath = join(here, `${name}.cache`);
  const writing = process.env.SF_CODE_CACHE_WRITE === '1';
  const cacheStat = statSync(cachePath, { throwIfNoEntry: false });
  // a cache written after the bundle was last changed may trust the id the build declared in it
  const content = cacheStat || writing ? bundleContentId(bytes, !writing && cacheStat !== undefined && bundleStat.mtimeMs < cacheStat.mtimeMs) : undefined;
  const id = content ? `${CACHE_MAGIC} ${content} ${bytes.length}\n` : undefined;
  const cachedData = id && cacheStat ? readCache(cachePath, id) : undefined;

  const script = new Script(Module.wrap(source), { filename: bundlePath, cachedData });
  if (process.env.SF_TRACE_STARTUP === '1') {
    const state = cachedData ? (script.cachedDataRejected ? 'rejected by V8' : 'used') : 'none for this bundle';
    trace(`bundle compiled (${name}.cjs, code cache ${state})`);
  }
  if (writing && id) {
    process.on('exit', () => {
      const tmp = `${cachePath}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([Buffer.from(id, 'latin1'), script.createCachedData()]));
      renameSync(tmp, cachePath);
    });
  }
  if (hashing) optimizeNothing();
  const bundle = new Module(bundlePath);
  bundle.filename = bundlePath;
  bundle.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(here);
  bundle.loaded = true;
  (script.runInThisContext() as (...args: unknown[]) => void).call(bundle.exports, bundle.exports, createRequire(bundlePath), bundle, bundlePath, here);
  return true;
}

/**
 * Turns off V8's optimizing compiler for this process. `sf skit hash` keeps every core busy
 * reading and hashing, so the background threads that optimize hot functions only take CPU from
 * it, and the run is too short for optimized code to pay that back: about 6% of the wall time on
 * 2 cores (npm run bench, hash.bench). The other commands leave a core idle and run faster with
 * it. Set after the code cache was read: a changed flag changes the hash V8 checks the cache
 * against, so the training runs (SF_CODE_CACHE_WRITE=1) must not set it either.
 */
function optimizeNothing(): void {
  if (process.env.SF_CODE_CACHE_WRITE === '1') return;
  (require('node:v8') as typeof import('node:v8')).setFlagsFromString('--no-opt');
  trace('optimizing compiler off (hashing on every core)');
}

/** core/trace/startup.ts's trace, which this CommonJS entry cannot import: write(2), as creating process.stderr would show up in the trace. */
const trace = (what: string) => {
  if (process.env.SF_TRACE_STARTUP === '1') writeSync(2, `[sf trace] ${performance.now().toFixed(1).padStart(7)} ms  ${what}\n`);
};

/** Starts the bundle's hash workers (one per core besides this thread, at most 3) for core/skit/file-digests.ts to adopt. */
function startHashWorkers(workerFile: string): void {
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { availableParallelism } = require('node:os') as typeof import('node:os');
  const early: { worker: import('node:worker_threads').Worker; ended: Promise<Error | null> }[] = [];
  for (let i = 1; i < Math.min(availableParallelism(), 4); i++) {
    // stdout/stderr: true, or Worker would pipe them into process.stdout and process.stderr, which
    // creates both streams here (net and tty for pipes, 1-2 ms); core/skit/hash-workers.ts
    // forwards what a worker prints once it adopts the worker (core/runtime/worker-output.ts)
    const worker = new Worker(workerFile, { stdout: true, stderr: true });
    worker.unref();
    const ended = new Promise<Error | null>((resolve) => {
      worker.once('error', resolve);
      worker.once('exit', () => resolve(null));
    });
    early.push({ worker, ended });
  }
  // the hand-off of core/skit/early-hash-workers.ts (an ES module, which this file cannot require)
  (globalThis as Record<symbol, unknown>)[Symbol.for('forge.sf.early-hash-workers')] = early;
}

/**
 * The bundle's content id: the CRC-32 of its bytes after the first line, where the build declares
 * it (`// sf-bundle <crc hex>`, scripts/build.mjs). V8 checks little more than a cache's length
 * against the source, so this id is what keeps an edited bundle from running stale bytecode.
 * Computing it needs node:zlib, which takes 2-4 ms to load; when the bundle has not changed since
 * its cache was written (`trustDeclared`: older than the cache) the declared id is used instead.
 * Undefined when neither is available (Node < 20.15 has no zlib.crc32): no code cache then.
 */
function bundleContentId(bytes: Buffer, trustDeclared: boolean): string | undefined {
  const eol = bytes.indexOf(10);
  const declared = /^\/\/ sf-bundle ([0-9a-f]{1,8})$/.exec(bytes.toString('latin1', 0, Math.max(eol, 0)))?.[1];
  if (trustDeclared && declared) return declared;
  // required only after the hash workers have started booting
  const crc32 = (require('node:zlib') as { crc32?: (data: Uint8Array) => number }).crc32;
  return crc32 ? crc32(bytes.subarray(eol + 1)).toString(16) : undefined;
}

/** The V8 data of the cache file when its header is `id`, else undefined. */
function readCache(cachePath: string, id: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(cachePath);
  } catch {
    return undefined; // no cache (a build without training): compile from source
  }
  return file.toString('latin1', 0, id.length) === id ? file.subarray(id.length) : undefined;
}

if (!startBundle()) void import('./run.js');
