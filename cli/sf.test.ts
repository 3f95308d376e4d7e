import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot, sfBin, tempDir } from '../test-support/index.js';
import { traceProcess } from '../test-support/syscalls.js';

describe('sf process behaviour', () => {
  it('exits quietly when the reader closes the pipe early (sf ... | head)', async () => {
    const child = spawn(process.execPath, [sfBin, 'skit', 'agents'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  // npm test builds first, so both bundles and their caches are current
  const startedFrom = (...args: string[]) => {
    const r = spawnSync(process.execPath, [sfBin, ...args], { env: { ...process.env, SF_TRACE_STARTUP: '1' }, encoding: 'utf8' });
    return /bundle compiled \(([^,]+), code cache ([^)]*)\)/.exec(r.stderr)?.slice(1);
  };

  /** Runs `body` with a SKIT scaffolded by `sf skit init <dir>/kit [initArgs]` in a fresh temp dir, removed afterwards. */
  const withKit = async (prefix: string, initArgs: string[], body: (kit: string, dir: string) => Promise<void>) => {
    const dir = await tempDir(prefix);
    try {
      const kit = join(dir.path, 'kit');
      assert.equal(spawnSync(process.execPath, [sfBin, 'skit', 'init', kit, ...initArgs], { encoding: 'utf8' }).status, 0);
      await body(kit, dir.path);
    } finally {
      await dir.cleanup();
    }
  };

  /** A git project with a .claude directory in `dir`, and an environment whose HOME and $SF_HOME are in `dir` too. */
  const claudeProject = async (dir: string, extraEnv: NodeJS.ProcessEnv) => {
    const project = join(dir, 'project');
    await mkdir(join(project, '.git'), { recursive: true });
    await mkdir(join(project, '.claude'), { recursive: true });
    return { project, env: { ...process.env, HOME: join(dir, 'home'), SF_HOME: join(dir, 'home', '.sf'), ...extraEnv } };
  };

  it('runs hash/validate and the library commands from bundles of their own, every other command from the whole CLI, each with its code cache', () => {
    assert.deepEqual(startedFrom('skit', 'hash', '--help'), ['sf-skit-read.cjs', 'used']);
    assert.deepEqual(startedFrom('skit', 'validate', '--help'), ['sf-skit-read.cjs', 'used']);
    for (const args of [['add', 'skit'], ...['install', 'enable', 'disable', 'update', 'remove', 'list', 'doctor'].map((c) => ['skit', c])]) {
      assert.deepEqual(startedFrom(...args, '--help'), ['sf-library.cjs', 'used'], args.join(' '));
    }
    assert.deepEqual(startedFrom('skit', 'pack', '--help'), ['sf-bundle.cjs', 'used']);
    assert.deepEqual(startedFrom('skit', '--help'), ['sf-bundle.cjs', 'used']);
    assert.deepEqual(startedFrom('add', '--help'), ['sf-bundle.cjs', 'used']);
  });

  it('checks a bundle against its code cache without node:zlib only while the bundle is older than the cache; an edited bundle never runs stale bytecode', async () => {
    // a copy of the loader and the hash/validate bundle inside the repository (node_modules resolves)
    const dir = await mkdtemp(join(repoRoot, 'dist', 'loader-test-'));
    try {
      for (const f of ['sf.cjs', 'entries.cjs', 'sf-skit-read.cjs', 'sf-skit-read.cache']) await copyFile(join(repoRoot, 'dist', 'cli', f), join(dir, f));
      const bundle = join(dir, 'sf-skit-read.cjs');
      const at = (file: string, seconds: number) => utimes(join(dir, file), seconds, seconds);
      await at('sf.cjs', 1_000_000);
      await at('entries.cjs', 1_000_000);
      await at('sf-skit-read.cjs', 1_000_100);
      await at('sf-skit-read.cache', 1_000_200);
      const run = () => {
        const r = spawnSync(process.execPath, ['--require', join(repoRoot, 'cli', 'fixtures', 'print-modules.cjs'), join(dir, 'sf.cjs'), 'skit', 'validate', '--help'], { env: { ...process.env, SF_TRACE_STARTUP: '1' }, encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        const modules = /^MODULES (.*)$/m.exec(r.stderr)?.[1].split(' ') ?? [];
        assert.ok(modules.includes('hook-ran'), r.stderr);
        return { cache: /code cache ([^)]*)\)/.exec(r.stderr)?.[1], zlib: modules.includes('zlib'), out: r.stdout + r.stderr };
      };
      assert.deepEqual((({ cache, zlib }) => ({ cache, zlib }))(run()), { cache: 'used', zlib: false }, 'unchanged since the cache: the declared id is enough');

      await at('sf-skit-read.cjs', 1_000_300);
      assert.deepEqual((({ cache, zlib }) => ({ cache, zlib }))(run()), { cache: 'used', zlib: true }, 'newer than the cache, same bytes: checked, then used');

      // an edit of the same length keeps the declared id and passes V8's own length check
      const text = await readFile(bundle, 'latin1');
      assert.ok(text.includes('Validate a SKIT'));
      await writeFile(bundle, text.replace('Validate a SKIT', 'Xalidate a SKIT'), 'latin1');
      await at('sf-skit-read.cjs', 1_000_400);
      const edited = run();
      assert.equal(edited.cache, 'none for this bundle');
      assert.match(edited.out, /Xalidate a SKIT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives every CommonJS build in dist/cli a working import.meta.url (esbuild would leave it empty)', async () => {
    const dir = join(repoRoot, 'dist', 'cli');
    const builds = (await readdir(dir)).filter((f) => f.endsWith('.cjs') && f !== 'sf.cjs' && f !== 'entries.cjs');
    assert.ok(builds.includes('hash-worker.cjs') && builds.includes('sf-library.cjs'), builds.join(', '));
    for (const file of builds) {
      const text = await readFile(join(dir, file), 'latin1');
      assert.doesNotMatch(text, /\bimport_meta\s*=\s*\{\s*\}/, `${file} has an empty import.meta`);
    }
  });

  it('turns V8\'s optimizing compiler off for sf skit hash only, and still uses its code cache', async () => {
    await withKit('sf-no-opt-', ['--id', 'acme/kit'], async (kit) => {
      const run = (...args: string[]) => spawnSync(process.execPath, [sfBin, ...args], { env: { ...process.env, SF_TRACE_STARTUP: '1' }, encoding: 'utf8' });
      const hash = run('skit', 'hash', kit, '--json');
      assert.equal(hash.status, 0, hash.stderr);
      assert.match(hash.stderr, /bundle compiled \(sf-skit-read\.cjs, code cache used\)/);
      assert.match(hash.stderr, /optimizing compiler off/);
      // the digests do not depend on it
      const plain = spawnSync(process.execPath, [sfBin, 'skit', 'hash', kit, '--json'], { encoding: 'utf8' });
      assert.deepEqual(JSON.parse(hash.stdout), JSON.parse(plain.stdout));
      for (const args of [['skit', 'validate', kit], ['skit', 'list']]) assert.doesNotMatch(run(...args).stderr, /optimizing compiler off/, args.join(' '));
    });
  });

  it('loads yaml and jsonc-parser only when a document needs them: not for a plain sf add skit, jsonc-parser for a config edit', async () => {
    await withKit('sf-lazy-libs-', ['--id', 'acme/kit'], async (kit, dir) => {
      const { project, env } = await claudeProject(dir, { SF_TRACE_STARTUP: '1' });
      const run = (...args: string[]) => spawnSync(process.execPath, [sfBin, ...args], { cwd: project, encoding: 'utf8', env });
      const add = run('add', 'skit', kit, '--agent', 'claude-code', '--yes');
      assert.equal(add.status, 0, add.stderr);
      assert.match(add.stderr, /\] +[\d.]+ ms +committed/);
      assert.doesNotMatch(add.stderr, /yaml loaded|jsonc-parser loaded/);
      // disabling a skill writes Claude Code's skillOverrides: that needs the JSON(C) editor
      const disable = run('skit', 'disable', 'acme/kit:review');
      assert.equal(disable.status, 0, disable.stderr);
      assert.match(disable.stderr, /jsonc-parser loaded/);
    });
  });

  it('starts a plain sf add skit without node:zlib or WebCrypto, and never reads the time zone (timestamps are UTC)', async () => {
    await withKit('sf-lean-add-', ['--id', 'acme/kit'], async (kit, dir) => {
      const { project, env } = await claudeProject(dir, { PRINT_MODULES_INTERNAL: '1' });
      const add = spawnSync(process.execPath, ['--require', join(repoRoot, 'cli', 'fixtures', 'print-modules.cjs'), sfBin, 'add', 'skit', kit, '--agent', 'claude-code', '--yes'], { cwd: project, encoding: 'utf8', env });
      assert.equal(add.status, 0, add.stderr);
      const modules = /^MODULES (.*)$/m.exec(add.stderr)?.[1].split(' ') ?? [];
      assert.ok(modules.includes('hook-ran') && modules.includes('crypto'), add.stderr);
      for (const m of ['zlib', 'internal/crypto/webcrypto']) assert.ok(!modules.includes(m), `${m} was loaded`);

      await rm(join(dir, 'home'), { recursive: true, force: true });
      await rm(join(project, '.claude', 'skills'), { recursive: true, force: true });
      const calls = await traceProcess(process.execPath, [sfBin, 'add', 'skit', kit, '--agent', 'claude-code', '--yes'], { cwd: project, env });
      assert.ok(calls.some((c) => c.call === 'openat' && c.args.includes('library.lmdb')), 'the trace holds the install');
      assert.deepEqual(calls.filter((c) => c.call === 'openat' && /localtime|zoneinfo/.test(c.args)), []);
    });
  });

  it('answers add skit and the library commands exactly as the whole CLI does: output, state, errors and exit codes', async () => {
    await withKit('sf-library-', ['--id', 'acme/kit'], async (kit, dir) => {
      const home = join(dir, 'home');
      const project = join(dir, 'project');
      const steps = [
        ['skit', 'list'],
        ['skit', 'list', '--json'],
        ['add', 'skit', kit, '--agent', 'claude-code', '--yes'],
        ['skit', 'list'],
        ['skit', 'disable', 'acme/kit:review', '--agent', 'claude-code'],
        ['skit', 'enable', 'acme/kit:review', '--agent', 'claude-code'],
        ['skit', 'doctor'],
        ['skit', 'update', '--all'],
        ['skit', 'remove', 'acme/kit'],
        ['skit', 'install', kit, '--agent', 'claude-code', '--yes', '--json'],
        ['skit', 'remove', 'nosuch/kit'],
        ['add', 'skit', join(dir, 'missing'), '--yes'],
        ['skit', 'list', '--bogus'],
        ['add', 'skit', '--help'],
        ['skit', 'doctor', '--help'],
      ];
      // the same steps in the same (fresh) directories, once through each entry
      const replay = async (script: string) => {
        await rm(home, { recursive: true, force: true });
        await rm(project, { recursive: true, force: true });
        await mkdir(join(project, '.git'), { recursive: true });
        await mkdir(join(project, '.claude'), { recursive: true });
        const env = { ...process.env, HOME: home, SF_HOME: join(home, '.sf'), NO_COLOR: '1' };
        return steps.map((args) => {
          const r = spawnSync(process.execPath, [script, ...args], { cwd: project, encoding: 'utf8', env });
          // ids and times minted per run
          const stable = (text: string) => text.replace(/"(installedAt|updatedAt|at|time|timestamp|id)": "[^"]*"/g, '"$1": "<varies>"');
          return { args: args.join(' '), status: r.status, stdout: stable(r.stdout), stderr: stable(r.stderr) };
        });
      };
      const library = await replay(sfBin);
      const whole = await replay(join(repoRoot, 'dist', 'cli', 'sf-bundle.cjs'));
      assert.equal(library[2].status, 0, library[2].stderr);
      assert.deepEqual(library, whole);
    });
  });

  it('answers skit hash and skit validate exactly as the whole CLI does: output, errors and exit codes', async () => {
    await withKit('sf-skit-read-', [], async (kit, dir) => {
      // a second SKIT with an undeclared executable and a case collision: invalid
      const bad = join(dir, 'bad');
      assert.equal(spawnSync(process.execPath, [sfBin, 'skit', 'init', bad], { encoding: 'utf8' }).status, 0);
      await mkdir(join(bad, 'skills', 'review', 'Scripts'), { recursive: true });
      await mkdir(join(bad, 'skills', 'review', 'scripts'), { recursive: true });
      await writeFile(join(bad, 'skills', 'review', 'scripts', 'run.sh'), '#!/bin/sh\necho\n');
      await writeFile(join(bad, 'skills', 'review', 'Scripts', 'a.md'), 'a\n');
      const whole = join(repoRoot, 'dist', 'cli', 'sf-bundle.cjs');
      const cases = [
        ['skit', 'hash', kit],
        ['skit', 'hash', kit, '--json'],
        ['skit', 'validate', kit],
        ['skit', 'validate', kit, '--json'],
        ['skit', 'hash', bad],
        ['skit', 'hash', bad, '--json'],
        ['skit', 'validate', bad],
        ['skit', 'hash', join(dir, 'missing')],
        ['skit', 'validate', join(dir, 'missing'), '--json'],
        ['skit', 'hash', '--bogus'],
        ['skit', 'hash', '--help'],
        ['skit', 'validate', '--help'],
      ];
      for (const args of cases) {
        const run = (script: string) => {
          const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
          return { status: r.status, stdout: r.stdout, stderr: r.stderr };
        };
        assert.deepEqual(run(sfBin), run(whole), args.join(' '));
      }
    });
  });

  it('usage errors exit 2 and unknown subcommands name the fix', async () => {
    const child = spawn(process.execPath, [sfBin, 'skit', 'no-such-command'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /^error\[SF_E_USAGE\]: "no-such-command" is not a command of `sf skit`\n  hint: the commands are: init, validate, /m);
    // with --help too: cmd-ts printed the family's help and exited 0, so a typo looked like success
    const typo = spawnSync(process.execPath, [sfBin, 'observe', 'instal', '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(typo.status, 2, typo.stderr);
    assert.match(typo.stderr, /"instal" is not a command of `sf observe`\n  hint: did you mean `sf observe install`\?/);
    assert.equal(typo.stdout, '');
  });

  it('starts without node:tty or a stderr stream when output goes to pipes, and still honours DEBUG for cmd-ts', () => {
    // cli/bundle/debug.ts and cli/bundle/tty.ts stand in for what cmd-ts's dependencies load at start-up
    const quiet = spawnSync(process.execPath, ['--require', join(repoRoot, 'cli', 'fixtures', 'print-modules.cjs'), sfBin, 'skit', 'list', '--help'], { encoding: 'utf8' });
    assert.equal(quiet.status, 0, quiet.stderr);
    const modules = /^MODULES (.*)$/m.exec(quiet.stderr)?.[1].split(' ') ?? [];
    assert.ok(modules.includes('hook-ran'), `the fixture printed no module list: ${quiet.stderr}`);
    for (const m of ['tty', 'net']) assert.ok(!modules.includes(m), `node:${m} was loaded: ${modules.join(', ')}`);
    assert.doesNotMatch(quiet.stderr, /cmd-ts:parser/);

    const debug = spawnSync(process.execPath, [sfBin, 'skit', 'list', '--help'], { encoding: 'utf8', env: { ...process.env, DEBUG: 'cmd-ts:*' } });
    assert.equal(debug.status, 0);
    assert.match(debug.stderr, /cmd-ts:parser Registered/);
  });
});
