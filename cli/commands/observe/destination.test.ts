import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startHub, type RunningHub } from '../../../hub/serve.js';
import { issueToken } from '../../../hub/auth/tokens.js';
import { runSf, tempDir } from '../../../test-support/index.js';

/** `sf observe destination add|list|remove` (file, OTLP, hub with a device credential) and `link`/`unlink`. */
describe('sf observe destination and link', function () {
  this.timeout(60_000);
  let tmp: { path: string; cleanup: () => Promise<void> };
  let hub: RunningHub;
  let pat: string;
  let env: NodeJS.ProcessEnv;
  const sf = (args: string[], extra: NodeJS.ProcessEnv = {}) => runSf(args, { env: { ...env, ...extra }, cwd: tmp.path });
  const config = () => JSON.parse(readFileSync(join(tmp.path, 'home', '.sf', 'config.json'), 'utf8')).observe;

  before(async () => {
    tmp = await tempDir('sf-observe-dest-');
    hub = await startHub({ dataDir: join(tmp.path, 'hub') });
    const user = hub.storage.accounts.createUser('alice', false);
    pat = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 'cli', scopes: ['registry:read', 'telemetry:write'] }).secret;
    env = { HOME: join(tmp.path, 'home'), SF_HOME: join(tmp.path, 'home', '.sf'), SF_HUB_TOKEN: '', SF_HUB_URL: '' };
  });
  after(async () => {
    await hub.close();
    await tmp.cleanup();
  });

  it('adds a file and an OTLP destination with header references, lists them, and refuses credentials in a URL', async () => {
    assert.equal((await sf(['observe', 'destination', 'add', 'local', 'file:out/obs.jsonl'])).code, 0);
    const r = await sf(['observe', 'destination', 'add', 'team', 'otlp:https://otel.example.com:4318/', '--header-env', 'Authorization=TEAM_OTEL_AUTH', '--protocol', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /TEAM_OTEL_AUTH is not set in this shell/);
    assert.deepEqual(config().destinations, [
      { name: 'local', type: 'file', path: join(tmp.path, 'out/obs.jsonl') },
      { name: 'team', type: 'otlp', endpoint: 'https://otel.example.com:4318', headers: { Authorization: { env: 'TEAM_OTEL_AUTH' } }, protocol: 'json' },
    ]);
    const list = await sf(['observe', 'destination', 'list']);
    assert.match(list.stdout, /team\s+otlp\s+otlp https:\/\/otel\.example\.com:4318 \(json\); headers: Authorization from \$TEAM_OTEL_AUTH/);
    const bad = await sf(['observe', 'destination', 'add', 'leak', 'otlp:https://user:pw@otel.example.com']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /must not contain credentials/);
    assert.equal((await sf(['observe', 'destination', 'add', 'x', 'ftp:somewhere'])).code, 2);
  });

  it('a file destination takes a size cap and a number of rotated files to keep; other kinds refuse them', async () => {
    const r = await sf(['observe', 'destination', 'add', 'capped', 'file:capped.jsonl', '--max-megabytes', '10', '--max-backups', '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(config().destinations.find((d: { name: string }) => d.name === 'capped'), { name: 'capped', type: 'file', path: join(tmp.path, 'capped.jsonl'), rotation: { maxMegabytes: 10, maxBackups: 0 } });
    assert.match((await sf(['observe', 'destination', 'list'])).stdout, /capped\s+file\s+file .*capped\.jsonl \(rotates at 10 MiB, keeps 0 rotated\)/);
    const before = config().destinations;
    for (const args of [['file:y.jsonl', '--max-megabytes', '0'], ['file:y.jsonl', '--max-backups', 'many'], ['otlp:https://otel.example.com', '--max-megabytes', '5']]) {
      const bad = await sf(['observe', 'destination', 'add', 'y', ...args]);
      assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
      assert.match(bad.stderr, /SF_E_USAGE.*(--max-megabytes|--max-backups)/);
    }
    assert.deepEqual(config().destinations, before, 'nothing was written');
    assert.equal((await sf(['observe', 'destination', 'remove', 'capped'])).code, 0);
  });

  it('creates a telemetry-only device credential with the sf login, keeps it in a 0600 file, and never shows it', async () => {
    const login = await runSf(['login', '--hub', hub.url], { env, input: pat });
    assert.equal(login.code, 0, login.stderr);
    const r = await sf(['observe', 'destination', 'add', 'forge', 'hub', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const d = config().destinations.find((x: { name: string }) => x.name === 'forge');
    assert.equal(d.type, 'hub');
    assert.equal(d.endpoint, hub.url);
    const file = d.credential.file as string;
    assert.equal(file, join(tmp.path, 'home', '.sf', 'observe', 'credentials', 'forge.token'));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const secret = readFileSync(file, 'utf8').trim();
    assert.match(secret, /^sfd_/, 'a device credential, not the personal token');
    const tokens = hub.storage.tokens.listForUser(hub.storage.accounts.findOwner('alice')!.id);
    const device = tokens.find((t) => t.kind === 'device')!;
    assert.deepEqual(device.scopes, ['telemetry:write']);
    assert.equal(config().deviceId, device.id);
    for (const text of [r.stdout, r.stderr, readFileSync(join(tmp.path, 'home', '.sf', 'config.json'), 'utf8'), (await sf(['observe', 'status', '--json'])).stdout]) {
      assert.ok(!text.includes(secret) && !text.includes(pat), 'no credential in output or config');
    }
    // the credential works against the hub's OTLP ingest
    const res = await fetch(`${hub.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: '{}' });
    assert.equal(res.status, 200);
    const rm = await sf(['observe', 'destination', 'remove', 'forge']);
    assert.equal(rm.code, 0, rm.stderr);
    assert.ok(!existsSync(file), 'the stored credential goes with the destination');
    assert.equal((await sf(['observe', 'destination', 'remove', 'forge'])).code, 3);
  });

  it('options that do not apply are refused, not ignored; a name given twice in one install is an error', async () => {
    const before = JSON.stringify(config());
    const cases: [string[], RegExp][] = [
      [['observe', 'destination', 'add', 'f2', 'file:f2.jsonl', '--protocol', 'json'], /--protocol applies to otlp and hub destinations/],
      [['observe', 'destination', 'add', 'f2', 'file:f2.jsonl', '--header-env', 'Authorization=X'], /--header-env applies to an otlp destination, and none is given here/],
      [['observe', 'destination', 'add', 'o2', 'otlp:https://o.example.com', '--token-env', 'X'], /--token-env applies to a hub destination/],
      [['observe', 'install', '--agents', 'none', '--no-service', '--header-env', 'Authorization=X'], /--header-env applies to an otlp destination/],
      [['observe', 'install', '--agents', 'none', '--no-service', '--destination', 'a=file:a.jsonl', '--destination', 'a=file:b.jsonl'], /two destinations are named "a"/],
    ];
    for (const [args, message] of cases) {
      const r = await sf(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    assert.equal(JSON.stringify(config()), before, 'nothing was written');
  });

  it('a hub destination with --token-env stores only the variable name', async () => {
    const r = await sf(['observe', 'destination', 'add', 'forge2', `hub:${hub.url}`, '--token-env', 'FORGE_DEVICE_TOKEN']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(config().destinations.find((x: { name: string }) => x.name === 'forge2').credential, { env: 'FORGE_DEVICE_TOKEN' });
  });

  it('refuses a hub destination that would send its credential over plain http beyond this machine', async () => {
    const before = config().destinations;
    const r = await sf(['observe', 'destination', 'add', 'far', 'hub:http://hub.example.com', '--token-env', 'FORGE_DEVICE_TOKEN']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /SF_E_USAGE\]: refusing to send a hub credential over plain http to hub\.example\.com/);
    assert.deepEqual(config().destinations, before);
  });

  it('link maps a path to owner/repo (canonical path, replacing an earlier link); unlink by path or repo', async () => {
    await mkdir(join(tmp.path, 'repo'), { recursive: true });
    assert.equal((await sf(['observe', 'link', 'repo', '--repo', 'acme/web'])).code, 0);
    assert.equal((await sf(['observe', 'link', './repo/', '--repo', 'acme/webapp'])).code, 0);
    assert.deepEqual(config().links, [{ repository: 'acme/webapp', path: realpathSync(join(tmp.path, 'repo')) }]);
    assert.equal((await sf(['observe', 'link', 'missing', '--repo', 'acme/x'])).code, 3);
    assert.equal((await sf(['observe', 'link', 'repo', '--repo', 'not-a-repo'])).code, 2);
    assert.equal((await sf(['observe', 'unlink', '--repo', 'acme/other'])).code, 3);
    assert.equal((await sf(['observe', 'unlink', 'repo'])).code, 0);
    assert.deepEqual(config().links, []);
  });
});
