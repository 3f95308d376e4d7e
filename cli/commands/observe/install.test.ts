import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * `sf observe install | status | doctor | update | uninstall` against a sandbox HOME with the
 * user's own Claude Code, Codex and OpenCode configs (no real host runs here; see
 * adapters/<host>/observe-real-host.test.ts for those).
 */

const SECRET = 's3cr3t-value-9b1f';
const CLAUDE_USER = '{\n  "model": "opus",\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "*", "hooks": [{ "type": "command", "command": "/usr/bin/git-ai checkpoint claude --hook-input stdin" }] }\n    ]\n  }\n}\n';
const CODEX_USER = '# mine\nmodel = "gpt-5.4"\n\n[tui]\nanimations = false\n';

describe('sf observe install / status / doctor / update / uninstall', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let env: NodeJS.ProcessEnv;
  let home: string;
  const sf = (args: string[]) => runSf(args, { env, cwd: home });
  const claudeFile = () => join(home, '.claude', 'settings.json');
  const codexFile = () => join(home, '.codex', 'config.toml');
  const pluginFile = () => join(home, '.config', 'opencode', 'plugins', 'forge-observe.js');

  before(async () => {
    tmp = await tempDir('sf-observe-cli-');
    home = join(tmp.path, 'home');
    env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', OTEL_TEAM_TOKEN: SECRET, PATH: '/usr/bin:/bin' };
    await mkdir(join(home, '.claude'), { recursive: true });
    await mkdir(join(home, '.codex'), { recursive: true });
    await writeFile(claudeFile(), CLAUDE_USER);
    await writeFile(codexFile(), CODEX_USER);
  });
  after(() => tmp.cleanup());

  const installArgs = ['observe', 'install', '--agents', 'claude-code,codex,opencode', '--no-service', '--port', '14999',
    '--destination', 'file:obs.jsonl', '--destination', 'team=otlp:https://otel.example.com:4318', '--header-env', 'Authorization=OTEL_TEAM_TOKEN'];

  it('without --yes explains the metadata-only default and the content opt-in, shows the plan, and changes nothing', async () => {
    const r = await sf(installArgs);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /collects by default \(metadata only\)/);
    assert.match(r.stdout, /Never sent by default: prompts/);
    assert.match(r.stdout, /Optional content collection \(--content/);
    assert.match(r.stdout, /destination add team: otlp https:\/\/otel\.example\.com:4318; headers: Authorization from \$OTEL_TEAM_TOKEN/);
    assert.match(r.stdout, /dry run: nothing was changed/);
    assert.equal(readFileSync(claudeFile(), 'utf8'), CLAUDE_USER);
    assert.equal(readFileSync(codexFile(), 'utf8'), CODEX_USER);
    assert.ok(!existsSync(join(home, '.sf', 'config.json')));
    const json = JSON.parse((await sf([...installArgs, '--json'])).stdout);
    assert.equal(json.applied, false);
    assert.deepEqual(json.plan.agents.map((h: { agent: string }) => h.agent), ['claude-code', 'codex', 'opencode']);
  });

  it('with --yes merges every host, writes the destinations as references, and never stores or prints a credential', async () => {
    const r = await sf([...installArgs, '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.agents.map((a: { status: string }) => a.status), ['applied', 'applied', 'applied']);
    const claude = JSON.parse(readFileSync(claudeFile(), 'utf8'));
    assert.equal(claude.model, 'opus');
    assert.equal(claude.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://127.0.0.1:14999');
    assert.deepEqual(claude.hooks, JSON.parse(CLAUDE_USER).hooks, 'Git AI\'s hook stays untouched and Forge adds none');
    assert.ok(!existsSync(join(home, '.sf', 'observe', 'hooks')), 'no hook script');
    assert.ok(readFileSync(codexFile(), 'utf8').startsWith(CODEX_USER));
    assert.match(readFileSync(pluginFile(), 'utf8'), /127\.0\.0\.1:14999\/forge\/v1\/events/);
    const config = JSON.parse(readFileSync(join(home, '.sf', 'config.json'), 'utf8'));
    assert.deepEqual(config.observe.destinations, [
      { name: 'local', type: 'file', path: join(home, 'obs.jsonl') },
      { name: 'team', type: 'otlp', endpoint: 'https://otel.example.com:4318', headers: { Authorization: { env: 'OTEL_TEAM_TOKEN' } } },
    ]);
    assert.equal(statSync(join(home, '.sf', 'observe', 'install.json')).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, '.sf')).mode & 0o777, 0o700, 'the install created $SF_HOME, private');
    for (const text of [r.stdout, r.stderr, readFileSync(join(home, '.sf', 'config.json'), 'utf8'), readFileSync(join(home, '.sf', 'observe', 'install.json'), 'utf8')]) assert.ok(!text.includes(SECRET));
    // idempotent: the same install again adds no second destination
    assert.equal((await sf([...installArgs, '--yes'])).code, 0);
    assert.deepEqual(JSON.parse(readFileSync(claudeFile(), 'utf8')), claude);
    assert.equal(JSON.parse(readFileSync(join(home, '.sf', 'config.json'), 'utf8')).observe.destinations.length, 2);
  });

  it('status --json reports the install, destinations and a stopped observer', async () => {
    const r = await sf(['observe', 'status', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.installed, true);
    assert.equal(s.observer.running, false);
    assert.deepEqual(s.destinations.map((d: { name: string }) => d.name), ['local', 'team']);
    assert.deepEqual(s.hosts.map((h: { agent: string }) => h.agent).sort(), ['claude-code', 'codex', 'opencode']);
    assert.ok(!r.stdout.includes(SECRET));
  });

  it('doctor finds a dead observer and another installer dropping Forge\'s settings; update repairs only Forge\'s entries', async () => {
    // another installer rewrites the settings without one of Forge's env keys
    const claude = JSON.parse(readFileSync(claudeFile(), 'utf8'));
    delete claude.env.CLAUDE_CODE_ENABLE_TELEMETRY;
    await writeFile(claudeFile(), JSON.stringify(claude, null, 2));
    await writeFile(pluginFile(), '// edited\n');
    const r = await sf(['observe', 'doctor', '--json']);
    assert.equal(r.code, 1);
    const codes = JSON.parse(r.stdout).diagnostics.map((d: { code: string }) => d.code);
    assert.ok(codes.includes('SF_OBSERVE_DEAD'), codes.join(','));
    assert.equal(codes.filter((c: string) => c === 'SF_OBSERVE_DRIFT').length, 2, codes.join(','));
    const u = await sf(['observe', 'update']);
    assert.equal(u.code, 0, u.stderr);
    const repaired = JSON.parse(readFileSync(claudeFile(), 'utf8'));
    assert.equal(repaired.env.CLAUDE_CODE_ENABLE_TELEMETRY, '1');
    assert.deepEqual(repaired.hooks, JSON.parse(CLAUDE_USER).hooks);
    assert.match(readFileSync(pluginFile(), 'utf8'), /forge\/v1\/events/);
    const after = JSON.parse((await sf(['observe', 'doctor', '--json'])).stdout).diagnostics.map((d: { code: string }) => d.code);
    assert.ok(!after.includes('SF_OBSERVE_DRIFT'), after.join(','));
  });

  it('uninstall --yes removes only Forge\'s blocks and files and restores the user\'s configs', async () => {
    const dry = await sf(['observe', 'uninstall']);
    assert.match(dry.stdout, /dry run/);
    assert.ok(existsSync(pluginFile()));
    // no service was installed (--no-service): the JSON leaves it out rather than saying null
    const dryJson = JSON.parse((await sf(['observe', 'uninstall', '--json'])).stdout);
    assert.equal(dryJson.removed, false);
    assert.ok(!('service' in dryJson.plan) && !dryJson.plan.hosts.some((h: object) => Object.values(h).includes(null)), JSON.stringify(dryJson));
    const r = await sf(['observe', 'uninstall', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!JSON.stringify(JSON.parse(r.stdout)).includes('null'), r.stdout);
    assert.equal(readFileSync(claudeFile(), 'utf8'), JSON.stringify(JSON.parse(CLAUDE_USER), null, 2), 'the user\'s settings (and Git AI\'s hook) are back as they were');
    assert.equal(readFileSync(codexFile(), 'utf8'), CODEX_USER, 'config.toml byte for byte');
    assert.ok(!existsSync(pluginFile()));
    assert.ok(!existsSync(join(home, '.sf', 'observe', 'install.json')));
    assert.match((await sf(['observe', 'status'])).stdout, /install: no/);
  });

  it('refuses to overwrite a user\'s own telemetry endpoint, leaving the file as it was, while other hosts still install', async () => {
    const mine = '{ "env": { "OTEL_EXPORTER_OTLP_ENDPOINT": "https://mine.example.com" } }\n';
    await writeFile(claudeFile(), mine);
    const r = await sf(['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code,codex', '--json']);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.agents.map((a: { agent: string; status: string }) => `${a.agent}:${a.status}`), ['claude-code:failed', 'codex:applied']);
    assert.match(out.agents[0].diagnostics[0].message, /OTEL_EXPORTER_OTLP_ENDPOINT/);
    assert.equal(await readFile(claudeFile(), 'utf8'), mine);
    assert.equal((await sf(['observe', 'uninstall', '--yes'])).code, 0);
    assert.equal(readFileSync(codexFile(), 'utf8'), CODEX_USER);
  });
});

describe('sf observe install and uninstall in a fresh home', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let home: string;
  beforeEach(async () => {
    tmp = await tempDir('sf-observe-fresh-');
    home = join(tmp.path, 'home');
    await mkdir(home, { recursive: true });
  });
  afterEach(() => tmp.cleanup());
  const sf = (args: string[]) => runSf(args, { env: { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: '/usr/bin:/bin' }, cwd: home });

  it('doctor on a machine where nothing is installed says so and exits 0', async () => {
    const text = await sf(['observe', 'doctor']);
    assert.equal(text.code, 0, text.stdout);
    assert.match(text.stdout, /observability is not installed on this machine, and no observer runs: nothing to check/);
    assert.doesNotMatch(text.stdout, /SF_OBSERVE_DEAD/);
    const json = await sf(['observe', 'doctor', '--json']);
    assert.equal(json.code, 0);
    assert.equal(JSON.parse(json.stdout).ok, true);
  });

  it('an install that fails after editing a host has recorded the edit, so uninstall still takes Forge\'s Claude Code settings out', async () => {
    const settings = join(home, '.claude', 'settings.json');
    await mkdir(join(home, '.claude'), { recursive: true });
    await writeFile(settings, '{\n  "model": "opus"\n}\n');
    // a file where the service step wants a directory: install fails after the host edits
    await mkdir(join(home, '.sf', 'observe'), { recursive: true });
    await writeFile(join(home, '.sf', 'observe', 'service'), 'in the way\n');
    const failed = await sf(['observe', 'install', '--agents', 'claude-code', '--port', '14998', '--yes']);
    assert.notEqual(failed.code, 0, failed.stdout);
    assert.match(readFileSync(settings, 'utf8'), /OTEL_/, 'the host edit happened before the failure');
    const r = await sf(['observe', 'uninstall', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(settings, 'utf8'), '{\n  "model": "opus"\n}\n', 'settings.json back as it was');
  });

  it('uninstall removes the directories install created, so the hosts are not "detected" afterwards', async () => {
    const installed = await sf(['observe', 'install', '--agents', 'claude-code,codex,opencode', '--no-service', '--port', '14997', '--yes']);
    assert.equal(installed.code, 0, installed.stderr);
    assert.ok(existsSync(join(home, '.codex')) && existsSync(join(home, '.claude')));
    const removed = await sf(['observe', 'uninstall', '--yes']);
    assert.equal(removed.code, 0, removed.stderr);
    for (const dir of ['.claude', '.codex', join('.config', 'opencode')]) assert.equal(existsSync(join(home, dir)), false, dir);
    const { plan } = JSON.parse((await sf(['observe', 'install', '--json'])).stdout) as { plan: { agents: { agent: string; present: boolean }[] } };
    assert.deepEqual(plan.agents.filter((a) => a.present).map((a) => a.agent), []);
  });

  it('a config directory the user made just before the install is the user\'s: uninstall leaves it, only what install made goes', async () => {
    // made a moment before: within the second the old birth-time check allowed
    await mkdir(join(home, '.codex'));
    await mkdir(join(home, '.config', 'opencode'), { recursive: true });
    const installed = await sf(['observe', 'install', '--agents', 'claude-code,codex,opencode', '--no-service', '--port', '14996', '--yes']);
    assert.equal(installed.code, 0, installed.stderr);
    const record = JSON.parse(readFileSync(join(home, '.sf', 'observe', 'install.json'), 'utf8')) as { hosts: Record<string, { createdDirs?: string[] }> };
    assert.deepEqual(record.hosts.codex.createdDirs, undefined);
    assert.deepEqual(record.hosts.opencode.createdDirs, [join(home, '.config', 'opencode', 'plugins')]);
    assert.deepEqual(record.hosts['claude-code'].createdDirs, [join(home, '.claude')]);
    const removed = await sf(['observe', 'uninstall', '--yes']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok(existsSync(join(home, '.codex')), 'the user\'s ~/.codex stays');
    assert.ok(existsSync(join(home, '.config', 'opencode')), 'the user\'s ~/.config/opencode stays');
    assert.ok(!existsSync(join(home, '.config', 'opencode', 'plugins')), 'the plugins directory install made goes');
    assert.ok(!existsSync(join(home, '.claude')));
  });
});
