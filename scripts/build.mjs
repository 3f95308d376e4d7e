#!/usr/bin/env node
// `npm run build`: type-checks and emits everything with tsc (dist/ keeps every module for benches,
// scripts and other consumers; dist/cli/sf.cjs is cli/sf.cts), then bundles the CLI:
//
//   dist/cli/sf-bundle.cjs    cli/run.ts and everything it reaches, one CommonJS script (esbuild)
//   dist/cli/sf-bundle.cache  V8 code cache of that script, trained here on real commands
//   dist/cli/sf-skit-read.cjs, .cache  the same for cli/run-skit-read.ts: `sf skit hash` and
//                             `sf skit validate` alone
//   dist/cli/sf-library.cjs, .cache    the same for cli/run-library.ts: `sf add skit` and the
//                             library commands (cli/entries.cts says which bundle runs what)
//   dist/cli/hash-worker.cjs  the hashing worker (core/skit/hash-worker.ts), its own small CommonJS
//                             bundle (a CommonJS worker boots a few ms faster than a module)
//   dist/cli/normalize-thread.js  the hub's normalizer thread (hub/normalize/normalize-thread.ts)
//
// dist/cli/sf.cjs starts the bundle from its code cache (see cli/sf.cts). Why: Node 20 has no
// compile cache, so `sf` used to spend most of its start-up resolving, reading and compiling
// hundreds of module files. CommonJS because only vm.Script takes a code cache on Node 20; modules
// reached through dynamic import() stay lazy (esbuild initializes them on first import).
//
// Outside the bundle, loaded from node_modules with require() when first needed:
//   protobufjs                 finds optional modules through an eval'd require
//   hono, @hono/node-server    the hub server (`sf hub serve` only)
//   isomorphic-git             git over http(s) sources only
//   @opentelemetry/*           telemetry export only
//   msgpackr-extract           msgpackr's optional native decoder (core/library/db.ts opts out)
//   bun:ffi                    a Bun-only branch of lmdb
// lmdb's JavaScript is bundled; its native addon is still loaded from its package (see
// lmdbLocatesItself).
import { spawnSync } from 'node:child_process';
import zlib from 'node:zlib';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
const bundleFile = join(outdir, 'sf-bundle.cjs');
const cacheFile = join(outdir, 'sf-bundle.cache');
/** The CLI bundles besides sf-bundle.cjs, by entry (cli/entries.cts); each cache is trained by the runs cli/sf.cts starts from it. */
const ENTRY_BUNDLES = [
  { entry: 'cli/run-skit-read.ts', name: 'sf-skit-read' },
  { entry: 'cli/run-library.ts', name: 'sf-library' },
];
const EXTERNAL = ['bun:ffi', 'msgpackr-extract', 'protobufjs', 'hono', 'hono/*', '@hono/node-server', 'isomorphic-git', 'isomorphic-git/*', '@opentelemetry/*'];

/** tsc over the whole project; returns its exit code (it still emits when files have type errors). */
function typecheckAndEmit() {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
  return r.status ?? 1;
}

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // prefer packages' ESM builds (jsonc-parser's "main" is a UMD wrapper esbuild cannot follow)
  mainFields: ['module', 'main'],
  legalComments: 'none',
  logLevel: 'warning',
};

async function bundle() {
  const result = await bundleCli('cli/run.ts', bundleFile);
  const entries = [];
  for (const { entry, name } of ENTRY_BUNDLES) {
    const file = join(outdir, `${name}.cjs`);
    entries.push({ file, cache: join(outdir, `${name}.cache`), bytes: bytes(await bundleCli(entry, file)) });
  }
  await build({ ...common, entryPoints: ['core/skit/hash-worker.ts'], outfile: join(outdir, 'hash-worker.cjs'), format: 'cjs', ...IMPORT_META_URL });
  // the hub's normalizer thread (hub/normalize/threaded.ts starts ./normalize-thread.js next to the bundle)
  await build({ ...common, entryPoints: ['hub/normalize/normalize-thread.ts'], outfile: join(outdir, 'normalize-thread.js'), format: 'esm', external: [...EXTERNAL, 'lmdb'] });
  await writeFile(join(root, 'dist', 'cli-bundle.meta.json'), JSON.stringify(result.metafile));
  return [{ file: bundleFile, cache: cacheFile, bytes: bytes(result) }, ...entries];
}

const bytes = (r) => r.metafile.outputs[Object.keys(r.metafile.outputs)[0]].bytes;

/**
 * `import.meta.url` in a CommonJS build: the file's own URL (esbuild would leave it undefined).
 * cli/sf.cts runs the CLI bundles as CommonJS module bodies, so there too __filename is the bundle.
 */
const IMPORT_META_URL = {
  define: { 'import.meta.url': '__sfImportMeta.url' },
  // a getter: a hash worker would otherwise load node:url at start for a value it rarely reads
  banner: { js: "const __sfImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
};

/** One CLI entry as a CommonJS script for cli/sf.cts to run from a code cache. */
async function bundleCli(entry, outfile) {
  const result = await build({
    ...common,
    entryPoints: [entry],
    outfile,
    format: 'cjs',
    external: EXTERNAL,
    alias: { lmdb: './node_modules/lmdb/dist/index.cjs' },
    // lmdbLocatesItself resolves lmdb's real file on purpose
    logOverride: { 'require-resolve-not-external': 'silent' },
    plugins: [lmdbLocatesItself, lightStartupChecks],
    // import() becomes require() (and lazy initialization for bundled modules): a script run from a
    // code cache has no dynamic-import callback, and require() of the CommonJS builds is faster
    supported: { 'dynamic-import': false },
    ...IMPORT_META_URL,
    metafile: true,
  });
  await writeFile(outfile, withContentId(asciiOnly(await readFile(outfile, 'utf8'), relative(root, outfile))));
  return result;
}

/**
 * lmdb's JavaScript is bundled (so it is in the code cache; loading its CommonJS build and its
 * dependencies from node_modules took ~15 ms per command). It finds its native addon, its
 * compression dictionary and its own require() from its file name, so inside the bundle its
 * `__filename` is the real dist/index.cjs of the installed package, resolved at run time.
 */
const lmdbLocatesItself = {
  name: 'lmdb-locates-itself',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]lmdb[\\/]dist[\\/]index\.cjs$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('__filename')) throw new Error(`${args.path} no longer uses __filename; check how lmdb finds its native addon`);
      // the package's own node_modules is where require.resolve looks first; resolving the exports
      // map costs ~2 ms, so that file is taken directly when it is there
      const locate = `var __sfLmdbFile = (() => { const p = require('node:path').join(__dirname, '..', '..', 'node_modules', 'lmdb', 'dist', 'index.cjs'); return require('node:fs').existsSync(p) ? p : require.resolve('lmdb'); })();`;
      return { contents: `${locate}\n${nativeAddonFastPath(args.path, text.replaceAll('__filename', '__sfLmdbFile'))}`, loader: 'js' };
    });
  },
};

/**
 * Two dependencies ask at load time whether stdout and stderr are terminals, in ways that load
 * node:tty and net (and create process.stderr): cmd-ts's `debug` and the supports-color vendored
 * in cmd-ts's chalk. In the CLI bundles they get cli/bundle/debug.ts (the real package only with
 * DEBUG set) and cli/bundle/tty.ts (isatty answered by fstat first, see cli/output/stdio.ts).
 */
const lightStartupChecks = {
  name: 'light-startup-checks',
  setup(b) {
    b.onResolve({ filter: /^debug$/ }, () => ({ path: join(root, 'cli', 'bundle', 'debug.ts') }));
    b.onResolve({ filter: /^node:tty$/ }, (args) => {
      if (!/[\\/]chalk[\\/]source[\\/]vendor[\\/]supports-color[\\/]/.test(args.importer)) return undefined;
      return { path: join(root, 'cli', 'bundle', 'tty.ts') };
    });
  },
};

/**
 * lmdb finds its native addon with node-gyp-build-optional-packages, whose start-up (detect-libc
 * probing the C library among other things) cost ~4 ms of every command that opens the library.
 * The addon the build resolved is tried first, for the same ABI, platform and arch; when it is
 * not there or does not load (another machine, another libc), lmdb's own lookup runs, loaded
 * only then.
 */
function nativeAddonFastPath(file, text) {
  const load = "var loadNAPI = require('node-gyp-build-optional-packages');";
  const call = 'let nativeAddon = loadNAPI__default["default"](dirName);';
  if (!text.includes(load) || !text.includes(call)) throw new Error(`${file} no longer loads its addon as this build expects; check nativeAddonFastPath`);
  const pkgDir = dirname(dirname(file));
  const addon = createRequire(import.meta.url)('node-gyp-build-optional-packages').resolve(pkgDir);
  const rel = relative(pkgDir, addon).split(sep).join('/');
  const fast = `(() => { const p = process; if (p.versions.modules !== ${JSON.stringify(process.versions.modules)} || p.platform !== ${JSON.stringify(process.platform)} || p.arch !== ${JSON.stringify(process.arch)}) return undefined; try { return require(require('node:path').join(dirName, ${JSON.stringify(rel)})); } catch { return undefined; /* not this machine's addon: the lookup below finds the right one */ } })()`;
  return text
    .replace(load, "var loadNAPI = { get default() { return require('node-gyp-build-optional-packages'); } };")
    .replace(call, `let nativeAddon = ${fast} ?? loadNAPI__default["default"](dirName);`);
}

/**
 * cli/sf.cts decodes the bundle as latin1 (a one-byte string, no UTF-8 decoding at start-up), which
 * is exact only for ASCII. esbuild escapes non-ASCII in strings and templates but leaves it in
 * regular expression literals, where `\uXXXX` means the same character (surrogate pairs included,
 * with or without the u flag) unless it follows a backslash, which is refused.
 */
function asciiOnly(text, name) {
  return text.replace(/[^\x00-\x7f]/g, (ch, offset) => {
    if (text[offset - 1] === '\\') throw new Error(`${name}: cannot escape the escaped non-ASCII character at offset ${offset}`);
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * Prepends `// sf-bundle <CRC-32 of the rest, hex>`: cli/sf.cts compares it with its code cache's
 * header without loading node:zlib while the bundle is older than the cache.
 */
function withContentId(text) {
  const body = Buffer.from(text, 'latin1');
  return zlib.crc32 ? `// sf-bundle ${zlib.crc32(body).toString(16)}\n${text}` : text;
}

/**
 * Trains the code cache: runs real commands through the loader, each one starting from the cache
 * the previous one wrote, so the cache ends up holding the functions all of them compiled.
 */
async function trainCodeCache() {
  await rm(cacheFile, { force: true });
  for (const { name } of ENTRY_BUNDLES) await rm(join(outdir, `${name}.cache`), { force: true });
  const tmp = await mkdtemp(join(tmpdir(), 'sf-build-'));
  try {
    const home = join(tmp, 'home');
    const project = join(tmp, 'project');
    const kit = join(tmp, 'kit');
    await mkdir(join(project, '.git'), { recursive: true });
    await mkdir(join(project, '.claude'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeKit(kit);
    const env = { ...process.env, HOME: home, SF_HOME: join(home, '.sf'), NO_COLOR: '1', SF_CODE_CACHE_WRITE: '1' };
    delete env.SF_HUB_URL;
    delete env.SF_HUB_TOKEN;
    const runs = [
      ['--help'],
      ['skit', 'init', join(tmp, 'scaffold')],
      ['skit', 'pack', kit, '-o', join(tmp, 'kit.tgz')],
      ['skit', 'agents'],
      ['skit', 'validate', kit],
      ['skit', 'validate', kit, '--json'],
      ['skit', 'hash', kit],
      ['skit', 'hash', kit, '--json'],
      ['add', 'skit', kit, '--agent', 'claude-code', '--yes'],
      ['skit', 'list'],
      ['skit', 'list', '--json'],
      ['skit', 'doctor'],
      ['skit', 'disable', 'train/kit:beta', '--agent', 'claude-code'],
      ['skit', 'remove', 'train/kit'],
      // from an archive too, so the library bundle's cache also holds the archive reader
      ['add', 'skit', join(tmp, 'kit.tgz'), '--agent', 'claude-code', '--yes'],
      ['skit', 'remove', 'train/kit'],
    ];
    for (const args of runs) {
      const r = spawnSync(process.execPath, [join(outdir, 'sf.cjs'), ...args], { cwd: project, env, encoding: 'utf8' });
      if (r.status !== 0 && !(args[0] === '--help')) throw new Error(`training run \`sf ${args.join(' ')}\` failed (${r.status}): ${r.stderr}`);
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function writeKit(dir) {
  const files = {
    'README.md': '---\nskit: 1\nid: train/kit\nskills:\n  - name: alpha\n    path: skills/alpha\n  - name: beta\n    path: skills/beta\n---\n\n# train kit\n',
    'skills/alpha/SKILL.md': '---\nname: alpha\ndescription: Trains the code cache. Use it never.\n---\n\n# alpha\n',
    'skills/alpha/references/notes.md': '# notes\n',
    // quoted and commented: read by the yaml library (alpha's plain frontmatter is not), so the
    // cache holds both readers
    'skills/beta/SKILL.md': '---\nname: beta # the second skill\ndescription: "Trains the code cache too: use it never."\n---\n\n# beta\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
}

async function main() {
  const tsc = process.argv.includes('--bundle-only') ? 0 : typecheckAndEmit();
  // bundle even when tsc reported type errors: the emitted JS still runs, and so must the CLI
  const bundles = await bundle();
  await trainCodeCache();
  const lines = [];
  for (const b of bundles) {
    const cache = await stat(b.cache).catch(() => null);
    if (!cache) throw new Error(`the training runs did not write ${relative(root, b.cache)}: dist/cli/sf.cjs did not start ${relative(root, b.file)} (run the full build, not --bundle-only, after changing cli/sf.cts)`);
    lines.push(`bundled ${relative(root, b.file)} (${Math.round(b.bytes / 1024)} KiB) with a ${Math.round(cache.size / 1024)} KiB code cache\n`);
  }
  process.stdout.write(lines.join(''));
  process.exitCode = tsc;
}

main().catch((e) => {
  process.stderr.write(`build failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
