import assert from 'node:assert/strict';
import { isSfError } from '../errors/index.js';
import { startServer, type TestServer } from '../../test-support/http-server.js';
import { bearerToken, withoutSecret } from './bearer.js';
import { HubClient } from './client.js';
import { objectWith } from './shape.js';

const SECRET = 'sfp_Zq9vR2mX_secret-Token';

describe('hub tokens: only a bearer credential is sent, and no error carries one out', () => {
  let server: TestServer;
  before(async () => (server = await startServer((_req, res) => void res.end('{}'))));
  after(() => server.close());

  it('trims a token and accepts RFC 6750 b64token text only', () => {
    assert.equal(bearerToken(`  ${SECRET}\r\n`, 'stdin'), SECRET);
    assert.equal(bearerToken('a.b~c+d/e==', 'stdin'), 'a.b~c+d/e==');
    for (const bad of [`${SECRET}\nmore`, `token: ${SECRET}`, `${SECRET}=x`, 'sfp_é', '', '=']) {
      assert.throws(() => bearerToken(bad, 'SF_HUB_TOKEN'), (e) => {
        assert.ok(isSfError(e, 'SF_E_AUTH'), String(e));
        assert.match(e.message, /^SF_HUB_TOKEN is not a bearer token/);
        assert.deepEqual(e.data, { source: 'SF_HUB_TOKEN' });
        assert.ok(!JSON.stringify(e).includes(SECRET), JSON.stringify(e));
        return true;
      }, JSON.stringify(bad));
    }
  });

  it('HubClient refuses a malformed token before anything is sent, naming where it came from', async () => {
    const client = new HubClient({ url: server.origin, token: `${SECRET}\nmore`, tokenSource: '/home/u/.sf/credentials.json' });
    await assert.rejects(client.getJson('/api/v1/user', objectWith({})), (e) => {
      assert.ok(isSfError(e, 'SF_E_AUTH'), String(e));
      assert.match(e.message, /the token stored in \/home\/u\/\.sf\/credentials\.json is not a bearer token/);
      assert.equal(e.hint, `run \`sf login --hub ${server.origin}\` again with only the token on stdin`, 'the hint names the hub');
      assert.ok(!JSON.stringify(e).includes(SECRET));
      return true;
    });
    assert.equal(server.requests.length, 0);
  });

  it('an error fetch throws while sending never quotes the token (here: a header the caller got wrong)', async () => {
    const client = new HubClient({ url: server.origin, token: SECRET });
    await assert.rejects(client.request('GET', '/x', { headers: { 'x-echo': `${SECRET}\nx` } }), (e) => {
      assert.ok(isSfError(e, 'SF_E_FETCH'), String(e));
      assert.ok(!e.message.includes(SECRET), e.message);
      assert.match(e.message, /<token>/);
      assert.equal(e.cause, undefined, 'the original error quoted it');
      return true;
    });
    assert.equal(withoutSecret(`a ${SECRET} b ${SECRET}`, SECRET), 'a <token> b <token>');
    assert.equal(withoutSecret('unchanged', undefined), 'unchanged');
  });
});
