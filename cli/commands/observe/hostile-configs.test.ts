import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * `sf observe` against host configs that are not ordinary files: each bad host is reported on its
 * own, the others are installed and recorded, nothing crashes and nothing outside is replaced.
 */
describe('sf observe install with hostile host configs', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let home: string;
  let env: NodeJS.ProcessEnv;
  const sf = (args: string[]) => runSf(args, { env, cwd: home });
  const install = (agents: string) => sf(['observe', 'install', '--yes', '--agents', agents, '--no-service', '--port', '14998']);

  beforeEach(async () => {
    tmp = await tempDir('sf-observe-hostile-');
    home = join(tmp.path, 'home');
    env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: '/usr/bin:/bin' };
    await mkdir(join(home, '.claude'), { recursive: true });
    await writeFile(join(home, '.claude', 'settings.json'), '{}\n');
  });
  afterEach(() => tmp.cleanup());

  it('a FIFO behind the config link is refused at once (it used to hang), the other host is installed', async () => {
    // inside the home directory, so only the kind of file is wrong
    const fifo = join(home, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await mkdir(join(home, '.codex'), { recursive: true });
    await symlink(fifo, join(home, '.codex', 'config.toml'));
    const r = await install('claude-code,codex');
    assert.match(r.stdout + r.stderr, /is not a regular file \(a device, FIFO or socket\)/);
    assert.ok(lstatSync(fifo).isFIFO(), 'the FIFO is still a FIFO');
    assert.match(await readFile(join(home, '.claude', 'settings.json'), 'utf8'), /OTEL_EXPORTER_OTLP_ENDPOINT|CLAUDE_CODE_ENABLE_TELEMETRY/);
  });

  it('a TOML table header nested thousands deep is SF_E_CONFIG for that host, not a crash', async () => {
    await mkdir(join(home, '.codex'), { recursive: true });
    await writeFile(join(home, '.codex', 'config.toml'), `[${Array.from({ length: 3000 }, () => 'a').join('.')}]\n`);
    const r = await install('claude-code,codex');
    assert.doesNotMatch(r.stdout + r.stderr, /internal error|RangeError|Maximum call stack/);
    assert.match(r.stdout + r.stderr, /nested too deeply/);
    const status = await sf(['observe', 'status', '--json']);
    assert.equal(status.code, 0, status.stderr);
  });

  it('a host whose config directory is a file fails alone; what the others changed is recorded and uninstalled', async () => {
    await writeFile(join(home, '.codex'), 'not a directory');
    const r = await install('claude-code,codex');
    assert.doesNotMatch(r.stdout + r.stderr, /internal error/);
    assert.match(r.stdout + r.stderr, /Codex: .*ENOTDIR/);
    const un = await sf(['observe', 'uninstall', '--yes']);
    assert.equal(un.code, 0, un.stdout + un.stderr);
    assert.equal(await readFile(join(home, '.claude', 'settings.json'), 'utf8'), '{}\n', 'Claude Code\'s entries were recorded, so uninstall removed them');
  });

  it('a host config linked out of the home directory is refused for that host, and the file outside is not written', async () => {
    const outside = join(tmp.path, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'settings.json'), '{}\n');
    const { rm } = await import('node:fs/promises');
    await rm(join(home, '.claude', 'settings.json'));
    await symlink(join(outside, 'settings.json'), join(home, '.claude', 'settings.json'));
    const r = await install('claude-code');
    assert.match(r.stdout + r.stderr, /symbolic link out of your home directory/);
    assert.equal(await readFile(join(outside, 'settings.json'), 'utf8'), '{}\n');
  });

  it('a config directory linked out of the home directory is refused by that link\'s path, not a file under it', async () => {
    const store = join(tmp.path, 'store', 'opencode');
    await mkdir(store, { recursive: true });
    await mkdir(join(home, '.config'), { recursive: true });
    await symlink(store, join(home, '.config', 'opencode'));
    const r = await sf(['observe', 'install', '--yes', '--agents', 'opencode,claude-code', '--no-service', '--port', '14998', '--json']);
    assert.equal(r.code, 1);
    const agents = JSON.parse(r.stdout).agents as { agent: string; status: string; diagnostics: { errorCode?: string; message: string; file?: string }[] }[];
    const refused = agents.find((a) => a.agent === 'opencode')!;
    assert.equal(refused.status, 'failed');
    assert.equal(refused.diagnostics[0].errorCode, 'SF_E_UNSAFE_PATH');
    assert.equal(refused.diagnostics[0].file, join(home, '.config', 'opencode'));
    assert.match(refused.diagnostics[0].message, new RegExp(`^OpenCode: ${join(home, '.config', 'opencode').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a symbolic link out of your home directory .* \\(to .*store/opencode\\), so the OpenCode plugin file .*forge-observe\\.js would be written there; refusing$`));
    assert.equal(agents.find((a) => a.agent === 'claude-code')!.status, 'applied');
    const { readdir } = await import('node:fs/promises');
    assert.deepEqual(await readdir(store), [], 'nothing written through the link');
  });

  it('update after CLAUDE_CONFIG_DIR changed takes Forge\'s settings out of the old file (they stayed there unrecorded)', async () => {
    const alt = join(home, 'alt-claude');
    await mkdir(alt);
    await writeFile(join(alt, 'settings.json'), '{\n  "model": "opus"\n}\n');
    const first = await runSf(['observe', 'install', '--yes', '--agents', 'claude-code', '--no-service', '--port', '14998'], { env: { ...env, CLAUDE_CONFIG_DIR: alt }, cwd: home });
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.match(await readFile(join(alt, 'settings.json'), 'utf8'), /OTEL_/);
    const update = await sf(['observe', 'update']);
    assert.equal(update.code, 0, update.stdout + update.stderr);
    assert.equal(await readFile(join(alt, 'settings.json'), 'utf8'), '{\n  "model": "opus"\n}\n');
    assert.match(await readFile(join(home, '.claude', 'settings.json'), 'utf8'), /OTEL_/);
    assert.equal((await sf(['observe', 'uninstall', '--yes'])).code, 0);
    assert.equal(await readFile(join(home, '.claude', 'settings.json'), 'utf8'), '{}\n');
  });

  it('update after CODEX_HOME changed takes Forge\'s [otel] table out of the old config.toml', async () => {
    const alt = join(home, 'alt-codex');
    await mkdir(alt);
    await writeFile(join(alt, 'config.toml'), 'model = "o3"\n');
    await mkdir(join(home, '.codex'), { recursive: true });
    const first = await runSf(['observe', 'install', '--yes', '--agents', 'codex', '--no-service', '--port', '14998'], { env: { ...env, CODEX_HOME: alt }, cwd: home });
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.match(await readFile(join(alt, 'config.toml'), 'utf8'), /\[otel\]/);
    const update = await sf(['observe', 'update']);
    assert.equal(update.code, 0, update.stdout + update.stderr);
    assert.equal(await readFile(join(alt, 'config.toml'), 'utf8'), 'model = "o3"\n');
    assert.match(await readFile(join(home, '.codex', 'config.toml'), 'utf8'), /\[otel\]/);
  });

  it('a hand-edited install record missing its edit lists is SF_E_CONFIG, not a TypeError', async () => {
    await mkdir(join(home, '.sf', 'observe'), { recursive: true });
    await writeFile(join(home, '.sf', 'observe', 'install.json'), JSON.stringify({ schema: 1, hosts: { 'claude-code': { agent: 'claude-code' } } }));
    for (const args of [['observe', 'status', '--json'], ['observe', 'doctor', '--json'], ['observe', 'uninstall', '--yes']]) {
      const r = await sf(args);
      assert.doesNotMatch(r.stdout + r.stderr, /TypeError|SF_E_INTERNAL/, args.join(' '));
      assert.match(r.stdout + r.stderr, /SF_E_CONFIG|not a Forge observe install record/, args.join(' '));
    }
  });
});
