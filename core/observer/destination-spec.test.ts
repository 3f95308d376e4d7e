import assert from 'node:assert/strict';
import { isSfError } from '../errors/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkEndpoint, describeDestination, fileDestination, parseDestinationSpec, parseHeaderEnv, uniqueName } from './destination-spec.js';

describe('destination specs of sf observe', () => {
  it('parses file:, otlp:, hub and hub:URL specs with an optional NAME= prefix', () => {
    assert.deepEqual(parseDestinationSpec('file:./a=b.jsonl'), { kind: 'file', target: './a=b.jsonl' });
    assert.deepEqual(parseDestinationSpec('team=otlp:https://o.example.com/p'), { name: 'team', kind: 'otlp', target: 'https://o.example.com/p' });
    assert.deepEqual(parseDestinationSpec('hub'), { kind: 'hub' });
    assert.deepEqual(parseDestinationSpec('forge=hub:http://127.0.0.1:8080'), { name: 'forge', kind: 'hub', target: 'http://127.0.0.1:8080' });
    for (const bad of ['ftp:x', 'otlp:', 'file', '']) assert.throws(() => parseDestinationSpec(bad), (e) => isSfError(e, 'SF_E_USAGE'), bad);
  });

  it('accepts only credential-free http(s) base URLs and env-reference headers', () => {
    assert.equal(checkEndpoint('https://o.example.com:4318/otlp/'), 'https://o.example.com:4318/otlp');
    for (const bad of ['https://u:p@o.example.com', 'grpc://o:4317', 'https://o.example.com/?token=x', 'nope']) assert.throws(() => checkEndpoint(bad), (e) => isSfError(e, 'SF_E_USAGE'), bad);
    // the message names the endpoint without its query, where keys are put
    assert.throws(() => checkEndpoint('http://127.0.0.1:19108/?api_key=QuerySecret456'), (e) => isSfError(e, 'SF_E_USAGE') && !e.message.includes('QuerySecret456') && e.message.includes('http://127.0.0.1:19108/'));
    assert.deepEqual(parseHeaderEnv(['Authorization=OTEL_AUTH', 'x-team=TEAM_1']), { Authorization: { env: 'OTEL_AUTH' }, 'x-team': { env: 'TEAM_1' } });
    for (const bad of ['Authorization=Bearer abc', 'Authorization', '=X', 'Bad Header=X']) assert.throws(() => parseHeaderEnv([bad]), (e) => isSfError(e, 'SF_E_USAGE'), bad);
  });

  it('refuses a signal endpoint (…/v1/logs) and never echoes a pasted header secret', () => {
    assert.throws(() => checkEndpoint('http://127.0.0.1:18500/v1/logs'), (e) => isSfError(e, 'SF_E_USAGE') && /names the logs signal path/.test(e.message) && /otlp:http:\/\/127\.0\.0\.1:18500;/.test(e.hint ?? ''));
    assert.equal(checkEndpoint('http://127.0.0.1:18500/v1'), 'http://127.0.0.1:18500/v1');
    assert.throws(() => parseHeaderEnv(['Authorization=Bearer sk-SECRET1']), (e) => isSfError(e, 'SF_E_USAGE') && !`${e.message}${e.hint}`.includes('sk-SECRET1') && e.message.includes('Authorization=…'));
    // each message blames the half that is wrong
    const message = (arg: string) => {
      try {
        parseHeaderEnv([arg]);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    assert.equal(message('Bad Header=OTEL_AUTH'), `--header-env: "Bad Header" is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-, no spaces)`);
    assert.equal(message('Authorization'), '--header-env Authorization needs "=ENVVAR": the environment variable that holds the value of the Authorization header');
    assert.equal(message('=OTEL_AUTH'), '--header-env =… has no header name before "="');
    assert.match(message('Authorization=1BAD'), /^--header-env Authorization=…: the part after "=" must name an environment variable/);
    for (const leak of ['Authorization: Bearer sk-SECRET2=x', 'Bearer sk-SECRET2']) assert.doesNotMatch(message(leak), /SECRET2/, leak);
  });

  it('expands ~ in a file destination and refuses a directory', async () => {
    const home = await mkdtemp(join(tmpdir(), 'sf-dest-'));
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      assert.equal(fileDestination('t1', '~/t.jsonl', '/somewhere').path, join(home, 't.jsonl'));
      assert.throws(() => fileDestination('t2', home, '/'), (e) => isSfError(e, 'SF_E_USAGE') && /is a directory/.test(e.message));
    } finally {
      process.env.HOME = saved;
      await rm(home, { recursive: true, force: true });
    }
  });

  it('names new destinations uniquely and describes them by reference only', () => {
    assert.equal(uniqueName('otlp', new Set(['otlp', 'otlp-2'])), 'otlp-3');
    assert.equal(describeDestination({ name: 'h', type: 'hub', endpoint: 'https://hub', credential: { file: '/k/h.token' } }), 'hub https://hub (credential: /k/h.token)');
    assert.equal(describeDestination({ name: 'o', type: 'otlp', endpoint: 'https://o', headers: { A: { env: 'X' }, B: 'lit' } }), 'otlp https://o; headers: A from $X, B from a literal');
  });
});
