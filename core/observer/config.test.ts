import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { DEFAULT_OBSERVE_CONFIG, parseObserveConfig, readObserveConfig, readObserveConfigLeniently, removeFromObserveConfig, updateObserveConfig } from './config.js';

const bad = (raw: unknown, pointer: RegExp) => assert.throws(() => parseObserveConfig(raw), (e) => e instanceof SfError && e.code === 'SF_E_CONFIG' && pointer.test(e.message));

describe('observe config ($SF_HOME/config.json "observe")', () => {
  it('defaults, validation of destinations, links and ports', () => {
    assert.deepEqual(parseObserveConfig(undefined), DEFAULT_OBSERVE_CONFIG);
    bad({ destinations: [{ name: 'Bad Name', type: 'file', path: '/x' }] }, /destinations\[0\]\.name/);
    bad({ destinations: [{ name: 'x', type: 'file', path: 'relative' }] }, /destinations\[0\]\.path/);
    bad({ destinations: [{ name: 'x', type: 'otlp', endpoint: 'https://user:pw@host' }] }, /must not contain credentials/);
    bad({ destinations: [{ name: 'x', type: 'otlp', endpoint: 'https://h', headers: { a: { env: 'not valid' } } }] }, /headers\.a/);
    bad({ destinations: [{ name: 'x', type: 'hub', endpoint: 'https://h' }] }, /credential/);
    bad({ destinations: [{ name: 'x', type: 'file', path: '/a' }, { name: 'x', type: 'file', path: '/b' }] }, /two destinations/);
    bad({ destinations: [{ name: 'x', type: 'file', path: '/a', rotation: { maxMegabytes: 0 } }] }, /destinations\[0\]\.rotation\.maxMegabytes: must be a whole number from 1/);
    bad({ destinations: [{ name: 'x', type: 'file', path: '/a', rotation: { maxBackups: 1.5 } }] }, /rotation\.maxBackups/);
    bad({ destinations: [{ name: 'x', type: 'file', path: '/a', rotation: { maxSize: 3 } }] }, /rotation\.maxSize: is not a rotation setting/);
    bad({ destinations: [{ name: 'x', type: 'file', path: '/a', rotation: 100 }] }, /rotation: must be an object/);
    assert.deepEqual(parseObserveConfig({ destinations: [{ name: 'x', type: 'file', path: '/a', rotation: { maxMegabytes: 5, maxBackups: 0 } }] }).destinations[0], { name: 'x', type: 'file', path: '/a', rotation: { maxMegabytes: 5, maxBackups: 0 } });
    bad({ links: [{ repository: 'nope', path: '/x' }] }, /links\[0\]\.repository/);
    bad({ receiver: { port: 70000 } }, /receiver\.port/);
    assert.throws(() => parseObserveConfig({ receiver: { port: 99999 } }), (e) => e instanceof SfError && /"observe\.receiver\.port"/.test(e.hint ?? '') && !/destination remove/.test(e.hint ?? ''));
    // the tuning settings the observer runs with: a busy loop, a negative queue or a string age are mistakes
    bad({ metrics: { intervalMs: 0 } }, /observe\.metrics\.intervalMs: must be a whole number from 1000/);
    bad({ queue: { maxRecords: -5 } }, /observe\.queue\.maxRecords: must be a whole number from 1 .*got -5/);
    bad({ queue: { maxAgeHours: 'x' } }, /observe\.queue\.maxAgeHours: must be a number .*got "x"/);
    bad({ batch: { maxRecords: 2.5 } }, /observe\.batch\.maxRecords/);
    bad({ batch: { delayMs: -1 } }, /observe\.batch\.delayMs/);
    bad({ collector: { port: 'x' } }, /observe\.collector\.port/);
    bad({ queue: 5 }, /observe\.queue: must be an object/);
    assert.throws(() => parseObserveConfig({ queue: { maxRecords: 0 } }), (e) => e instanceof SfError && /"observe\.queue\.maxRecords"/.test(e.hint ?? ''));
    assert.deepEqual(parseObserveConfig({ queue: { maxAgeHours: 0.5 }, batch: { delayMs: 0 } }).queue, { maxRecords: DEFAULT_OBSERVE_CONFIG.queue.maxRecords, maxAgeHours: 0.5 });
    bad(null, /observe: must be a JSON object/);
    bad([], /observe: must be a JSON object/);
  });

  it('updates only the observe key, keeps other keys and unknown observe keys, writes 0600', async () => {
    const tmp = await tempDir();
    try {
      const file = join(tmp.path, 'config.json');
      await writeFile(file, JSON.stringify({ hub: { url: 'https://hub' }, observe: { future: 1 } }));
      await updateObserveConfig(file, (o) => ({ ...o, destinations: [{ name: 'local', type: 'file', path: '/tmp/t.jsonl' }] }));
      const whole = JSON.parse(await readFile(file, 'utf8'));
      assert.deepEqual(whole.hub, { url: 'https://hub' });
      assert.equal(whole.observe.future, 1);
      assert.equal((await readObserveConfig(file)).destinations[0].name, 'local');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      await assert.rejects(updateObserveConfig(file, (o) => ({ ...o, receiver: { port: -1 } })), (e) => e instanceof SfError && e.code === 'SF_E_CONFIG');
      assert.equal(JSON.parse(await readFile(file, 'utf8')).observe.receiver, undefined, 'an invalid edit is not written');
      // a broken file says where JSON broke, as line:column, and what broke there
      await writeFile(file, '{"observe": ');
      await assert.rejects(readObserveConfig(file), (e) => e instanceof SfError && e.code === 'SF_E_CONFIG' && e.message === `${file}:1:13: not valid JSON: unexpected end of JSON input`);
      await writeFile(file, '{\n  "observe": {\n    "links": [],\n    oops\n  }\n}\n');
      await assert.rejects(readObserveConfig(file), (e) => {
        assert.ok(e instanceof SfError && e.code === 'SF_E_CONFIG');
        assert.match(e.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:5: not valid JSON: (expected double-quoted property name|unexpected token)`));
        assert.doesNotMatch(e.message, /position|not a JSON object/);
        assert.deepEqual({ line: e.location?.line, column: e.location?.column }, { line: 4, column: 5 });
        return true;
      });
      await writeFile(file, '[1]');
      await assert.rejects(readObserveConfig(file), (e) => e instanceof SfError && e.message === `${file}: the top level is not a JSON object`);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a bad destination names the command that removes it, and that command works while the config does not validate', async () => {
    assert.throws(() => parseObserveConfig({ destinations: [{ name: 'x', type: 'otlp', endpoint: 'ftp://a' }] }), (e) => e instanceof SfError && /`sf observe destination remove x`/.test(e.hint ?? ''));
    const tmp = await tempDir();
    try {
      const file = join(tmp.path, 'config.json');
      await writeFile(file, JSON.stringify({ observe: { destinations: [{ name: 'x', type: 'otlp', endpoint: 'ftp://a' }, { name: 'ok', type: 'file', path: '/tmp/ok.jsonl' }], batch: { maxRecords: 0 } } }));
      assert.equal((await readObserveConfigLeniently(file)).problem?.code, 'SF_E_CONFIG');
      const { config, problem } = await removeFromObserveConfig(file, (o) => ({ ...o, destinations: (o.destinations as { name: string }[]).filter((d) => d.name !== 'x') }));
      assert.match(problem?.message ?? '', /observe\.batch\.maxRecords/, 'what is still wrong comes back');
      assert.deepEqual(config, DEFAULT_OBSERVE_CONFIG);
      assert.deepEqual(JSON.parse(await readFile(file, 'utf8')).observe.destinations.map((d: { name: string }) => d.name), ['ok'], 'written although another key is still wrong');
    } finally {
      await tmp.cleanup();
    }
  });
});
