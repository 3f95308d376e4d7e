import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startHub } from '../../../hub/serve.js';
import { runSf, tempDir } from '../../../test-support/index.js';

/**
 * The documented bootstrap (docs/hub-registry.md): `create-user ... > token.txt`, `sf hub serve`,
 * `sf login --hub URL < token.txt`, run as the real CLI against a real hub on 127.0.0.1.
 */
describe('sf hub admin create-user', function () {
  this.timeout(60_000);
  let root: string;
  let cleanup: () => Promise<void>;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempDir('sf-hub-admin-'));
    const home = join(root, 'home');
    await mkdir(home);
    env = { HOME: home, SF_HOME: join(home, '.sf'), SF_HUB_URL: undefined, SF_HUB_TOKEN: undefined, XDG_CONFIG_HOME: join(home, '.config'), PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
  });
  afterEach(() => cleanup());

  it('writes only the token to a stdout that is not a terminal, so `> token.txt` then `sf login < token.txt` works', async () => {
    const data = join(root, 'hub-data');
    const created = await runSf(['hub', 'admin', 'create-user', 'alice', '--admin', '--data', data], { cwd: root, env });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^sfp_[A-Za-z0-9_-]+\n$/);
    const token = created.stdout.trim();
    assert.match(created.stderr, /created user alice \(admin\) in /);
    assert.match(created.stderr, /shown once/);
    assert.ok(!created.stderr.includes(token), 'the token is on stdout only');
    await writeFile(join(root, 'token.txt'), created.stdout);
    const hub = await startHub({ dataDir: data, port: 0 });
    try {
      const login = await runSf(['login', '--hub', hub.url], { cwd: root, env, input: await readFile(join(root, 'token.txt')) });
      assert.equal(login.code, 0, login.stderr);
      assert.match(login.stdout, /logged in to .* as alice \(scopes: .*admin/);
    } finally {
      await hub.close();
    }
  });

  it('--json keeps its shape: user, token, tokenId, scopes', async () => {
    const r = await runSf(['hub', 'admin', 'create-user', 'bob', '--data', join(root, 'hub-data'), '--json'], { cwd: root, env });
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j), ['user', 'token', 'tokenId', 'scopes']);
    assert.equal(j.user.login, 'bob');
    assert.match(j.token, /^sfp_/);
    assert.equal(r.stderr, '');
  });
});
