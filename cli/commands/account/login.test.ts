import assert from 'node:assert/strict';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { liveHub, ok, type LiveHub, type Person } from '../../../hub/acceptance/support.js';

/** The parsed `--json` error object a command wrote on stderr. */
const jsonError = (stderr: string) => JSON.parse(stderr).error as { code: string; message: string; hint: string; data?: Record<string, unknown> };

/** A token must not appear anywhere in what a command printed, nor any of its lines. */
function assertNotEchoed(text: string, secret: string): void {
  for (const part of secret.split('\n').filter((p) => p.length > 4)) assert.ok(!text.includes(part), `the output echoes "${part}":\n${text}`);
  assert.doesNotMatch(text, /Bearer/);
}

const exists = (path: string) => stat(path).then(() => true, () => false);

describe('sf login and hub commands: a token that cannot be a bearer credential is refused, never echoed', function () {
  this.timeout(60_000);
  let live: LiveHub;
  let person: Person;
  before(async () => (live = await liveHub()));
  after(() => live?.close());
  beforeEach(async () => (person = await live.person(`p${Math.random().toString(36).slice(2, 8)}`)));

  it('refuses create-user\'s transcript on stdin as a malformed token from stdin (SF_E_AUTH, exit 8), stores nothing', async () => {
    const token = live.token('alice');
    const transcript = `created user alice (admin) in /srv/hub-data\ntoken (shown once, store it now): ${token}\n`;
    const r = await person.sf(['login', '--hub', live.hub.url], { input: transcript });
    assert.equal(r.code, 8, r.stderr);
    assert.match(r.stderr, /error\[SF_E_AUTH\]: the token read from stdin is not a bearer token/);
    assert.match(r.stderr, /hint: .*only the token/);
    assertNotEchoed(r.stdout + r.stderr, transcript);
    const j = await person.sf(['login', '--hub', live.hub.url, '--json'], { input: `${token}\nmore\n` });
    assert.equal(j.code, 8, j.stderr);
    const e = jsonError(j.stderr);
    assert.equal(e.code, 'SF_E_AUTH');
    assert.equal(e.data?.source, 'stdin');
    assertNotEchoed(j.stdout + j.stderr, token);
    assert.equal(await exists(join(person.env.SF_HOME!, 'credentials.json')), false);
  });

  it('trims the whitespace and newline around a piped token, and logs in', async () => {
    const r = await person.sf(['login', '--hub', live.hub.url], { input: `  ${live.token('bob')}\r\n\n` });
    ok(r, 'login');
    assert.match(r.stdout, /logged in to .* as bob/);
  });

  it('refuses a multi-line SF_HUB_TOKEN in sf login and in every hub command, naming SF_HUB_TOKEN', async () => {
    const secret = `${live.token('carol')}\nmore`;
    const env = { SF_HUB_URL: live.hub.url, SF_HUB_TOKEN: secret };
    for (const args of [['login', '--hub', live.hub.url], ['skit', 'list', '--remote'], ['skit', 'list', '--remote', '--json'], ['skit', 'pull', 'carol/kit']]) {
      const r = await person.sf(args, { env });
      assert.equal(r.code, 8, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /SF_E_AUTH/, args.join(' '));
      assert.match(r.stderr, /SF_HUB_TOKEN is not a bearer token/, args.join(' '));
      assertNotEchoed(r.stdout + r.stderr, secret);
    }
  });

  it('refuses a hand-edited credentials file whose token is malformed, naming the file', async () => {
    const secret = `${live.token('dave')} extra`;
    const file = join(person.env.SF_HOME!, 'credentials.json');
    await mkdir(person.env.SF_HOME!, { recursive: true });
    await writeFile(file, JSON.stringify({ schema: 1, default: live.hub.url, hubs: { [live.hub.url]: { url: live.hub.url, token: secret, login: 'dave', savedAt: new Date().toISOString() } } }), { mode: 0o600 });
    const r = await person.sf(['skit', 'list', '--remote', '--json']);
    assert.equal(r.code, 8, r.stderr);
    const e = jsonError(r.stderr);
    assert.equal(e.code, 'SF_E_AUTH');
    assert.equal(e.data?.source, file);
    assert.ok(e.message.includes(file), e.message);
    assertNotEchoed(r.stdout + r.stderr, secret);
  });
});
