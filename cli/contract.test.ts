import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { sfBin } from '../test-support/index.js';
import { installSandbox, type InstallSandbox } from '../test-support/skit-install.js';

/**
 * The command-line contract the README and docs/cli-json.md promise, checked on the built CLI:
 * usage errors are SF_E_USAGE (as JSON with --json), an option is never silently dropped, exit
 * codes survive a closed pipe, colours follow NO_COLOR/FORCE_COLOR, bad ports and paths are
 * named errors rather than stack traces.
 */
describe('sf command-line contract', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;
  before(async () => (sb = await installSandbox('sf-contract-')));
  after(() => sb.cleanup());

  it('an option given without its value is a usage error, never the default (which could mean every agent)', async () => {
    const install = await sb.sf(['add', 'skit', sb.source, '--yes', '--agent']);
    assert.equal(install.code, 2, install.stderr);
    assert.match(install.stderr, /error\[SF_E_USAGE\].*No value provided for --agent/);
    assert.deepEqual(await sb.list(), [], 'nothing was installed');
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--yes', '--agent', 'claude-code'])).code, 0);
    const remove = await sb.sf(['skit', 'remove', 'bench/kit', '--agent']);
    assert.equal(remove.code, 2);
    assert.equal((await sb.list()).length, 1, 'nothing was removed');
  });

  it('an empty or blank argument (an unset variable) is a usage error, never "every SKIT" (cliux D4)', async () => {
    assert.equal((await sb.sf(['add', 'skit', sb.source, '--yes', '--agent', 'claude-code'])).code, 0);
    const before = (await sb.list())[0].bundleHash;
    await writeFile(join(sb.source, 'skills/review/SKILL.md'), '---\nname: review\ndescription: The review skill, changed upstream.\n---\n\n# review\n');
    for (const args of [['skit', 'update', ''], ['skit', 'update', ' ', '--force'], ['skit', 'update', '--force', '--', ''], ['skit', 'update', '--version', '', 'acme/kit']]) {
      const r = await sb.sf(args);
      assert.equal(r.code, 2, `${JSON.stringify(args)}: ${r.stderr}`);
      assert.match(r.stderr, /error\[SF_E_USAGE\]: (an empty argument|No value provided for --version)/, JSON.stringify(args));
    }
    assert.equal((await sb.list())[0].bundleHash, before, 'nothing was updated');
    const json = await sb.sf(['skit', 'update', '', '--json']);
    assert.equal(JSON.parse(json.stderr).error.code, 'SF_E_USAGE');
    const remove = await sb.sf(['skit', 'remove', '']);
    assert.equal(remove.code, 2);
    assert.equal((await sb.list()).length, 1, 'nothing was removed');
  });

  it('parse errors are SF_E_USAGE, as a JSON object on stderr with --json; a missing subcommand is one too', async () => {
    for (const args of [['skit', 'list', '--json', '--bogus'], ['add', 'skit', '--json'], ['skit', 'list', '--json', '--json']]) {
      const r = await sb.sf(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stdout, '');
      const { error } = JSON.parse(r.stderr);
      assert.equal(error.code, 'SF_E_USAGE');
      assert.match(error.hint, /--help/);
    }
    const bare = await sb.sf(['skit']);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /SF_E_USAGE.*subcommand is missing/);
    assert.equal((await sb.sf(['--help'])).code, 0);
    assert.equal((await sb.sf(['--version'])).code, 0);
    const nope = await sb.sf(['skit', 'validate', join(sb.root, 'missing'), '--json=true']);
    assert.equal(JSON.parse(nope.stderr).error.code, 'SF_E_NOT_FOUND', '--json=true asks for JSON too');
  });

  it('keeps its exit code when the reader of stdout goes away (set -o pipefail sees the failure)', async () => {
    const bad = join(sb.root, 'badkit');
    await mkdir(bad, { recursive: true });
    await writeFile(join(bad, 'README.md'), '---\nskit: 1\nid: Not Valid\n---\n');
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [sfBin, 'skit', 'validate', bad, '--json'], { env: { ...process.env, ...sb.env }, stdio: ['ignore', 'pipe', 'ignore'] });
      child.stdout.destroy(); // the reader is gone before the first byte
      child.on('close', resolve);
    });
    assert.equal(code, 1);
  });

  it('colours follow NO_COLOR and FORCE_COLOR, for cmd-ts\'s help and parse errors too', async () => {
    const forced = await sb.sf(['skit', 'validate', join(sb.root, 'missing')], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    assert.match(forced.stderr, /\u001b\[31merror/);
    for (const args of [['--help'], ['skit', 'list', '--bogus'], ['skit', 'validate', join(sb.root, 'missing')]]) {
      const r = await sb.sf(args, { env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
      assert.doesNotMatch(r.stdout + r.stderr, /\u001b\[/, args.join(' '));
    }
  });

  it('a port out of range is a usage error; a port in use names the problem (no stack trace, nothing left running)', async () => {
    for (const args of [['hub', 'serve', '--port', '99999', '--data', join(sb.root, 'hub')], ['observe', 'daemon', '--port', '99999']]) {
      const r = await sb.sf(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /SF_E_USAGE.*--port "99999" is not a TCP port \(0-65535\)/);
    }
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as { port: number }).port;
      const r = await sb.sf(['hub', 'serve', '--port', String(port), '--data', join(sb.root, 'hub')]);
      assert.equal(r.code, 10);
      assert.match(r.stderr, /error\[SF_E_IO\].*EADDRINUSE/);
      assert.match(r.stderr, /another process already listens/);
      assert.doesNotMatch(r.stderr, /node:events|at Server|doctor --fix/);
    } finally {
      blocker.close();
    }
  });

  it('a path of the wrong kind, and a skill id with two colons, are usage errors naming the path or id', async () => {
    const dir = join(sb.root, 'outdir');
    await mkdir(dir, { recursive: true });
    const pack = await sb.sf(['skit', 'pack', sb.source, '-o', dir]);
    assert.equal(pack.code, 2, pack.stderr);
    assert.match(pack.stderr, /is a directory/);
    const file = join(sb.root, 'a-file');
    await writeFile(file, 'x');
    const init = await sb.sf(['skit', 'init', file]);
    assert.equal(init.code, 2, init.stderr);
    assert.match(init.stderr, /is a file, not a directory/);
    const query = await sb.sf(['skit', 'list', '--query', 'review']);
    assert.equal(query.code, 2, 'a remote filter on the local list is refused, not ignored');
    assert.match(query.stderr, /--query works only with --remote/);
    const both = await sb.sf(['skit', 'list', '--local', '--remote']);
    assert.equal(both.code, 2, 'the spec\'s two list modes exclude each other');
    assert.match(both.stderr, /--local and --remote cannot be combined/);
    const local = await sb.sf(['skit', 'list', '--local', '--json']);
    assert.equal(local.code, 0, `--local (the spec's name for the default) lists what is installed: ${local.stderr}`);
    assert.ok(Array.isArray(JSON.parse(local.stdout)));
    const id = await sb.sf(['skit', 'enable', 'bench/kit:review:extra']);
    assert.equal(id.code, 2);
    assert.match(id.stderr, /is not a skill id/);
  });
});
