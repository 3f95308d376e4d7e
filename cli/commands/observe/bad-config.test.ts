import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * A mistake in $SF_HOME/config.json (a value out of range, a bad destination, broken JSON) stops
 * the commands that read it, with the key or line:column; but never the ways out: `uninstall`
 * works from the install record, `destination remove` takes the bad entry out, and the hint
 * names a command that works.
 */
describe('sf observe with a config.json that does not validate', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let env: NodeJS.ProcessEnv;
  let config: string;
  let claude: string;
  const sf = (args: string[]) => runSf(args, { env, cwd: tmp.path });
  const CLAUDE = '{\n  "model": "opus"\n}\n';

  beforeEach(async () => {
    tmp = await tempDir('sf-observe-badconfig-');
    const home = join(tmp.path, 'home');
    await mkdir(join(home, '.claude'), { recursive: true });
    claude = join(home, '.claude', 'settings.json');
    await writeFile(claude, CLAUDE);
    env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', PATH: '/usr/bin:/bin' };
    config = join(home, '.sf', 'config.json');
    const r = await sf(['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code', '--port', '14777']);
    assert.equal(r.code, 0, r.stderr);
  });
  afterEach(() => tmp.cleanup());

  const setObserve = async (change: (o: Record<string, any>) => void) => {
    const whole = JSON.parse(await readFile(config, 'utf8')) as { observe: Record<string, any> };
    change(whole.observe);
    await writeFile(config, JSON.stringify(whole, null, 2) + '\n');
  };

  it('a bad destination: status names the command that removes it, and that command works', async () => {
    await setObserve((o) => o.destinations.push({ name: 'x', type: 'otlp', endpoint: 'ftp://a' }));
    const status = await sf(['observe', 'status']);
    assert.equal(status.code, 1);
    assert.match(status.stderr, /observe\.destinations\[1\]\.endpoint: must be an http\(s\) URL/);
    assert.match(status.stderr, /hint: fix the entry in .*config\.json, or remove it: `sf observe destination remove x`/);
    const remove = await sf(['observe', 'destination', 'remove', 'x']);
    assert.equal(remove.code, 0, remove.stderr);
    assert.match(remove.stdout, /^removed destination x$/m);
    assert.equal((await sf(['observe', 'status'])).code, 0);
  });

  it('destination remove works while another key is wrong too, and says what is left to fix', async () => {
    await setObserve((o) => {
      o.destinations.push({ name: 'x', type: 'otlp', endpoint: 'ftp://a' });
      o.batch = { maxRecords: 0 };
    });
    const remove = await sf(['observe', 'destination', 'remove', 'x']);
    assert.equal(remove.code, 0, remove.stderr);
    assert.match(remove.stderr, /note: .*observe\.batch\.maxRecords: must be a whole number from 1/);
    assert.equal((await sf(['observe', 'destination', 'remove', 'nope'])).code, 3);
  });

  it('uninstall goes on with a value out of range, and with broken JSON (named by line:column elsewhere)', async () => {
    await setObserve((o) => (o.batch = { maxRecords: 0 }));
    const r = await sf(['observe', 'uninstall', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: .*observe\.batch\.maxRecords.*; uninstall does not need it and goes on/);
    assert.match(r.stdout, /^removed: Claude Code$/m);
    assert.equal(await readFile(claude, 'utf8'), CLAUDE);
    assert.ok(!existsSync(join(env.SF_HOME!, 'observe', 'install.json')));

    assert.equal((await sf(['observe', 'install', '--yes', '--no-service', '--agents', 'claude-code'])).code, 1, 'install still refuses a config it cannot use');
    await writeFile(config, '{\n  "observe": {\n    "receiver": { "port": 14777 },\n  }\n}\n');
    const status = await sf(['observe', 'status']);
    assert.equal(status.code, 1);
    assert.match(status.stderr, /config\.json:4:3: not valid JSON: /);
    assert.doesNotMatch(status.stderr, /position|not a JSON object/);
  });

  it('uninstall with broken JSON in config.json still takes Forge\'s settings out', async () => {
    await writeFile(config, '{ "observe": ');
    const r = await sf(['observe', 'uninstall', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: .*config\.json:1:14: not valid JSON: unexpected end of JSON input; uninstall does not need it/);
    assert.equal(await readFile(claude, 'utf8'), CLAUDE);
  });
});
