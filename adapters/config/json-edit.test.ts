import assert from 'node:assert/strict';
import { isSfError } from '../../core/errors/index.js';
import { MAX_JSON_DEPTH, getPath, parseJsonConfig } from './json-edit.js';
import { setJsonText } from './json-text-edit.js';

const FILE = '/p/.claude/settings.local.json';

describe('JSON host config parsing and editing (adapters/config/json-edit.ts)', () => {
  it('keeps "__proto__" an ordinary key: never the prototype, kept through an edit', () => {
    const text = '{\n  "__proto__": {"skillOverrides": {"beta": "on"}}\n}\n';
    const doc = parseJsonConfig(text, FILE);
    assert.equal(Object.getPrototypeOf(doc), Object.prototype);
    assert.ok(Object.hasOwn(doc, '__proto__'));
    // the prototype-looking key must not answer for a real path
    assert.equal(getPath(doc, ['skillOverrides', 'beta']), undefined);
    const out = setJsonText(text, ['skillOverrides', 'beta'], 'off', '\n', FILE);
    const after = parseJsonConfig(out, FILE);
    assert.deepEqual(getPath(after, ['__proto__', 'skillOverrides', 'beta']), 'on');
    assert.equal(getPath(after, ['skillOverrides', 'beta']), 'off');
    assert.equal(({} as Record<string, unknown>).skillOverrides, undefined, 'no global pollution');
  });

  it('finds nothing at inherited names such as "constructor" or "toString"', () => {
    const doc = parseJsonConfig('{"skillOverrides": {"gamma": "off"}}', FILE);
    assert.equal(getPath(doc, ['skillOverrides', 'constructor']), undefined);
    assert.equal(getPath(doc, ['toString']), undefined);
    const out = setJsonText('{"skillOverrides": {"gamma": "off"}}', ['skillOverrides', 'constructor'], 'off', '\n', FILE);
    assert.equal(getPath(parseJsonConfig(out, FILE), ['skillOverrides', 'constructor']), 'off');
  });

  it('refuses a document nested deeper than the limit with SF_E_CONFIG, not a stack overflow', () => {
    const deep = `{"deep": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    assert.throws(() => parseJsonConfig(deep, FILE), (e: unknown) => isSfError(e, 'SF_E_CONFIG') && /nested more than 200 levels/.test(e.message) && e.location?.line === 1);
    // brackets inside strings and comments do not count
    const quoted = `{\n  // ${'['.repeat(500)}\n  "a": "${'{'.repeat(500)}" /* ${'['.repeat(500)} */\n}`;
    assert.deepEqual(parseJsonConfig(quoted, FILE), { a: '{'.repeat(500) });
    const atLimit = `${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}`;
    assert.doesNotThrow(() => parseJsonConfig(`{"a": ${atLimit}}`, FILE));
  });
});

describe('JSON config syntax errors read as words', () => {
  it('says what is expected where, not jsonc-parser\'s token names', () => {
    const message = (text: string) => {
      try {
        parseJsonConfig(text, '/p/settings.json');
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    assert.equal(message('{\n  "a": 1\n  "b": 2\n}\n'), '/p/settings.json:3:3: expected a comma; Forge will not edit a config file it cannot parse');
    assert.match(message('{\n  "a": \n}\n'), /^\/p\/settings\.json:3:1: expected a value;/);
    assert.match(message('{\n  "a": "open\n}\n'), /: a string that is not closed;/);
    assert.doesNotMatch(message('{ "a": 1 } x'), /Expected|Symbol/);
  });
});
