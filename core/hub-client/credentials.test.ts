import assert from 'node:assert/strict';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { assertDirSynced, assertDurableRename, mkdirIndex, traceCall } from '../../test-support/syscalls.js';
import { credentialsPath, hubOrigin, knownHubs, readCredentials, removeLogin, resolveHubTarget, saveLogin } from './credentials.js';

describe('hub-client credentials', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    dir = await tempDir('sf-cred-');
    env = { SF_HOME: join(dir.path, 'sf') };
  });
  afterEach(() => dir.cleanup());

  const login = (url: string, token: string) => ({ url, token, login: 'alice', savedAt: '2026-01-01T00:00:00.000Z' });

  it('writes the file with mode 0600 in a 0700 directory, leaving no temp files', async () => {
    await saveLogin(login('http://127.0.0.1:1', 'sfp_secret1'), env);
    const file = credentialsPath(env);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await stat(join(dir.path, 'sf'))).mode & 0o777, 0o700);
    assert.deepEqual(await readdir(join(dir.path, 'sf')), ['credentials.json']);
    assert.equal(JSON.parse(await readFile(file, 'utf8')).default, 'http://127.0.0.1:1');
  });

  it('picks the hub from --hub, then SF_HUB_URL, then the default; the token from SF_HUB_TOKEN, then the file', async () => {
    await saveLogin(login('http://a.example', 'sfp_a'), env);
    await saveLogin(login('http://b.example', 'sfp_b'), env);
    const file = credentialsPath(env);
    assert.deepEqual(await resolveHubTarget(undefined, env), { url: 'http://b.example', token: 'sfp_b', tokenSource: file });
    assert.deepEqual(await resolveHubTarget('http://A.example/', env), { url: 'http://a.example', token: 'sfp_a', tokenSource: file });
    assert.deepEqual(await resolveHubTarget(undefined, { ...env, SF_HUB_URL: 'http://c.example' }), { url: 'http://c.example' });
    assert.deepEqual(await resolveHubTarget(undefined, { ...env, SF_HUB_URL: '' }), await resolveHubTarget(undefined, env));
    assert.deepEqual(await resolveHubTarget(undefined, { ...env, SF_HUB_TOKEN: ' sfp_env\n' }), { url: 'http://b.example', token: 'sfp_env', tokenSource: 'SF_HUB_TOKEN' });
    assert.deepEqual(await resolveHubTarget(undefined, { ...env, SF_HUB_TOKEN: ' \n' }), await resolveHubTarget(undefined, env), 'a blank SF_HUB_TOKEN is unset');
    assert.deepEqual((await knownHubs(env)).map((h) => h.url), ['http://b.example', 'http://a.example']);
    assert.equal(await removeLogin(undefined, env), 'http://b.example');
    assert.equal((await readCredentials(env)).default, 'http://a.example');
    assert.equal(await resolveHubTarget(undefined, { SF_HOME: join(dir.path, 'none') }), undefined);
  });

  it('refuses URLs with credentials or other schemes, and a file that is not ours', async () => {
    assert.throws(() => hubOrigin('https://user:pw@hub.example'), /must not contain credentials/);
    assert.throws(() => hubOrigin('ftp://hub.example'), /http\(s\)/);
    await saveLogin(login('http://a.example', 'sfp_a'), env);
    await writeFile(credentialsPath(env), '{"not":"ours"}');
    await assert.rejects(readCredentials(env), (e: Error & { code?: string }) => e.code === 'SF_E_CONFIG');
  });

  it('saves durably: the file fsynced before its rename, the directory (and the parent of a new one) after', async () => {
    const calls = await traceCall('core/hub-client/credentials.ts', 'saveLogin', login('http://127.0.0.1:1', 'sfp_secret1'), env);
    assertDurableRename(calls, credentialsPath(env));
    assertDirSynced(calls, dir.path, mkdirIndex(calls, join(dir.path, 'sf')), 'creating $SF_HOME');
  });

  it('writes an observer device secret the same way, 0600', async () => {
    const file = join(dir.path, 'sf', 'observe', 'credentials', 'hub.token');
    const calls = await traceCall('core/observer/hub-device.ts', 'writeSecretFile', file, 'sfd_secret');
    assertDurableRename(calls, file);
    assert.equal(await readFile(file, 'utf8'), 'sfd_secret\n');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(join(file, '..')), ['hub.token']);
  });
});
