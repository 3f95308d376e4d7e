#!/usr/bin/env node
// `npm run demo`: the main job on embedded defaults, in a temporary directory, with the built CLI.
// Each step prints the command it runs and its output; the demo stops at the first failure.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sf = join(repo, 'dist', 'cli', 'sf.cjs');
const work = mkdtempSync(join(tmpdir(), 'sf-demo-'));
// a machine of its own: its own home and host config locations, and a PATH without the agent
// binaries npm puts in node_modules/.bin (dev dependencies, not hosts this demo machine has)
const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && !dir.split(sep).includes('node_modules')).join(delimiter);
const env = { ...process.env, SF_HOME: join(work, 'sf-home'), HOME: join(work, 'home'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', OPENCODE_CONFIG: '', OPENCODE_CONFIG_DIR: '', PATH: path, NO_COLOR: '1' };
delete env.SF_HUB_URL;
delete env.SF_HUB_TOKEN;
const skit = join(work, 'code-review');
const project = join(work, 'project');
const teammate = join(work, 'teammate-project');
const hubData = join(work, 'hub-data');

class DemoFailed extends Error {}

function step(title, args, { cwd = work, expect = 0, input, extraEnv = {}, quiet = false } = {}) {
  process.stdout.write(`\n== ${title}\n$ sf ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, [sf, ...args], { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', input });
  if (!quiet) process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  if (r.status !== expect) throw new DemoFailed(`"${title}" exited ${r.status}, expected ${expect}`);
  return r.stdout;
}

/** Starts `sf hub serve` on a free port and resolves with its URL and a stop function. */
function startHub() {
  process.stdout.write(`\n== Start a local hub with embedded storage\n$ sf hub serve --port 0 --data ${hubData}\n`);
  const child = spawn(process.execPath, [sf, 'hub', 'serve', '--port', '0', '--data', hubData], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolvePromise, reject) => {
    let buf = '';
    let started = false;
    child.stdout.on('data', (d) => {
      if (started) return void process.stdout.write(d);
      buf += d;
      const m = /listening on (http:\/\/\S+)/.exec(buf);
      if (m) {
        started = true;
        process.stdout.write(buf);
        resolvePromise({ url: m[1], stop: () => new Promise((done) => { child.once('close', done); child.kill('SIGTERM'); }) });
      }
    });
    child.once('exit', (code) => reject(new DemoFailed(`hub exited early with ${code}`)));
  });
}

let hub;
try {
  process.stdout.write(`Forge demo in ${work}\n`);
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(teammate, '.git'), { recursive: true });

  // 1. author a SKIT
  step('Scaffold a two-skill SKIT', ['skit', 'init', skit, '--id', 'demo/code-review']);
  step('Validate it', ['skit', 'validate', skit]);
  step('Hash it (bundle, per-skill, inventory)', ['skit', 'hash', skit]);
  step('Pack a deterministic release archive', ['skit', 'pack', skit, '-o', join(work, 'code-review-1.0.0.tgz')]);

  // 2. install it locally and manage its contained skills
  step('Install it into a Claude Code project', ['add', 'skit', skit, '--agent', 'claude-code', '--yes'], { cwd: project });
  step('Disable one contained skill (Claude Code skillOverrides)', ['skit', 'disable', 'demo/code-review:summarize'], { cwd: project });
  step('List installed SKITs', ['skit', 'list'], { cwd: project });
  step('Check the installation against its hashes', ['skit', 'doctor', '--offline'], { cwd: project });
  step('Record which SKIT releases and skills this work had (FORGE:SKIT_EVIDENCE)', ['forge', 'evidence', '--scope', 'demo'], { cwd: project });

  // 3. publish through a hub and install the exact release elsewhere
  const created = JSON.parse(step('Bootstrap the hub admin (prints the token once)', ['hub', 'admin', 'create-user', 'demo', '--admin', '--data', hubData, '--json'], { quiet: true }));
  process.stdout.write(`created user ${created.user.login} (token hidden)\n`);
  hub = await startHub();
  step('Log in (token from stdin, never echoed)', ['login', '--hub', hub.url], { input: created.token + '\n' });
  step('Publish release 1.0.0', ['skit', 'publish', skit, '--version', '1.0.0']);
  step('List SKITs on the hub', ['skit', 'list', '--remote']);
  step('A teammate installs the exact release from the hub', ['add', 'skit', 'demo/code-review@1.0.0', '--agent', 'claude-code', '--yes'], { cwd: teammate });
  step('Doctor verifies bundle and skill hashes against the hub', ['skit', 'doctor'], { cwd: teammate });

  // 4. observability: consented, metadata-only setup of the observer and the host adapter
  step('Explain and plan skill observability (dry run: changes nothing)', ['observe', 'install', '--agents', 'claude-code', '--destination', `file:${join(work, 'observations.jsonl')}`, '--no-service'], { cwd: project });
  step('Apply it: Claude Code OTel env (no hook), file destination', ['observe', 'install', '--agents', 'claude-code', '--destination', `file:${join(work, 'observations.jsonl')}`, '--no-service', '--yes'], { cwd: project });
  step('Observer status', ['observe', 'status'], { cwd: project });
  step('Remove only what Forge added', ['observe', 'uninstall', '--yes'], { cwd: project });
  process.stdout.write('\nDemo finished.\n');
} catch (e) {
  if (!(e instanceof DemoFailed)) throw e;
  process.stderr.write(`demo failed: ${e.message}\n`);
  process.exitCode = 1;
} finally {
  await hub?.stop();
  rmSync(work, { recursive: true, force: true });
}
