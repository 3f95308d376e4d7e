import assert from 'node:assert/strict';
import { appendJsonItem, emptyContainerText, removeJsonItem, removeJsonText, restoreEmptyContainer, setJsonText } from './json-text-edit.js';

const FILE = '/p/opencode.jsonc';
const remove = (text: string, path: string[]) => removeJsonText(text, path, '\n', FILE);
const set = (text: string, path: string[], value: unknown) => setJsonText(text, path, value, '\n', FILE);

describe('JSON text edits keep the user\'s comments (adapters/config/json-text-edit.ts)', () => {
  it('removing an entry before the user\'s own keeps the user\'s comment line', () => {
    const text = '{\n  "skill": {\n    "summarize": "deny",\n    // keep my-skill off: it leaks secrets\n    "my-skill": "deny"\n  }\n}\n';
    assert.equal(remove(text, ['skill', 'summarize']), '{\n  "skill": {\n    // keep my-skill off: it leaks secrets\n    "my-skill": "deny"\n  }\n}\n');
  });

  it('removing the last entry keeps a comment line before it', () => {
    const text = '{\n  "skill": {\n    "mine": "deny",\n    // about the next one\n    "summarize": "deny"\n  }\n}\n';
    assert.equal(remove(text, ['skill', 'summarize']), '{\n  "skill": {\n    "mine": "deny"\n    // about the next one\n  }\n}\n');
  });

  it('removing the last entry keeps a comment at the end of the previous sibling\'s line', () => {
    const text = '{\n  "skill": {\n    "mine": "deny", // mine\n    "summarize": "deny"\n  }\n}\n';
    assert.equal(remove(text, ['skill', 'summarize']), '{\n  "skill": {\n    "mine": "deny" // mine\n  }\n}\n');
  });

  it('removing an entry keeps a comment after it on its own line', () => {
    const text = '{\n  "summarize": "deny", // forge\'s neighbour\n  "b": 1\n}\n';
    assert.equal(remove(text, ['summarize']), '{\n  // forge\'s neighbour\n  "b": 1\n}\n');
  });

  it('adding then removing gives the bytes back, on separate lines and on one line', () => {
    for (const text of ['{\n  "a": 1\n}\n', '{"a": 1}', '{\n  "a": 1}', '{"a": 1, "b": {"c": 2}}', '{\n  "a": 1, // mine\n  "b": 2\n}\n']) {
      const added = set(text, ['z'], 'deny');
      assert.equal(remove(added, ['z']), text, JSON.stringify(text));
    }
  });
});

describe('JSON text edits in objects written on one line stay on that line', () => {
  it('an entry added to an empty container on one line goes on that line', () => {
    const text = '{"model": "x", "skillOverrides": {}}';
    const added = set(text, ['skillOverrides', 'summarize'], 'off');
    assert.equal(added, '{"model": "x", "skillOverrides": {"summarize": "off"}}');
    assert.equal(remove(added, ['skillOverrides', 'summarize']), text);
  });

  it('a value replaced inside a one-line object is written on that line', () => {
    const text = '{"permission": {"skill": "ask", "bash": "allow"}, "model": "m"}';
    assert.equal(set(text, ['permission', 'skill'], { '*': 'ask' }), '{"permission": {"skill": {"*":"ask"}, "bash": "allow"}, "model": "m"}');
  });

  it('an empty container spread over lines still gets the entry on a line of its own', () => {
    assert.equal(set('{\n  "skillOverrides": {\n  }\n}\n', ['skillOverrides', 'summarize'], 'off'), '{\n  "skillOverrides": {\n    "summarize": "off"\n  }\n}\n');
  });
});

describe('JSON text edits leave the user\'s comments with the user\'s entries', () => {
  it('an entry added after a last entry with a comment on its line goes on the next line; the comment stays', () => {
    const cases: [string, string][] = [
      ['{\n  "a": 1 // mine\n}\n', '{\n  "a": 1, // mine\n  "z": "deny"\n}\n'],
      ['{\n  "a": 1, // mine\n}\n', '{\n  "a": 1, // mine\n  "z": "deny",\n}\n'],
      ['{\n  "a": 1 /* mine */ // and more\n}\n', '{\n  "a": 1, /* mine */ // and more\n  "z": "deny"\n}\n'],
      ['{\r\n  "a": 1 // mine\r\n}\r\n', '{\r\n  "a": 1, // mine\r\n  "z": "deny"\r\n}\r\n'],
    ];
    for (const [text, want] of cases) {
      const added = setJsonText(text, ['z'], 'deny', text.includes('\r\n') ? '\r\n' : '\n', FILE);
      assert.equal(added, want, JSON.stringify(text));
      assert.equal(removeJsonText(added, ['z'], text.includes('\r\n') ? '\r\n' : '\n', FILE), text, JSON.stringify(text));
    }
  });

  it('in an object on one line, the entry goes after a comment that follows the last entry', () => {
    for (const [text, want] of [
      ['{ "a": 1 /* mine */ }', '{ "a": 1, /* mine */ "z": "deny" }'],
      ['{ "a": 1, /* mine */ }', '{ "a": 1, /* mine */ "z": "deny", }'],
      ['{"a": 1}', '{"a": 1, "z": "deny"}'],
    ]) {
      const added = set(text, ['z'], 'deny');
      assert.equal(added, want, text);
      assert.equal(remove(added, ['z']), text, text);
    }
  });

  it('an empty one-line container holding a comment gets the entry after the comment, on that line, and back', () => {
    const text = '{"s": { /* none yet */ }}';
    const added = set(text, ['s', 'x'], 'off');
    assert.equal(added, '{"s": { /* none yet */ "x": "off" }}');
    assert.equal(remove(added, ['s', 'x']), text);
  });

  it('the text an empty container held is put back only where just whitespace differs', () => {
    assert.equal(restoreEmptyContainer('{\n  "env": {}\n}\n', ['env'], '\n  ', FILE), '{\n  "env": {\n  }\n}\n');
    assert.equal(restoreEmptyContainer('{ "env": {} }', ['env'], ' /* none */ ', FILE), '{ "env": { /* none */ } }');
    assert.equal(restoreEmptyContainer('{ }', [], '\n', FILE), '{\n}');
    // the user put something of their own there since: left alone
    assert.equal(restoreEmptyContainer('{ "env": { /* mine */ } }', ['env'], ' ', FILE), '{ "env": { /* mine */ } }');
    assert.equal(restoreEmptyContainer('{ "env": {"a": 1} }', ['env'], ' ', FILE), '{ "env": {"a": 1} }');
    assert.equal(emptyContainerText('{ "env": { } }', ['env']), ' ');
    assert.equal(emptyContainerText('{ "env": {} }', ['env']), undefined);
    assert.equal(emptyContainerText('{ "env": {"a": 1} }', ['env']), undefined);
  });
});

describe('JSON text edits next to a user\'s trailing comma in unusual places', () => {
  it('a trailing comma on its own line after a commented last entry (comma-first) stays there', () => {
    const text = '{\n  "permission": {\n    "skill": {\n      "*": "allow" // default\n      ,\n    },\n  },\n}\n';
    const added = set(text, ['permission', 'skill', 'summarize'], 'deny');
    assert.deepEqual(JSON.parse(added.replace(/\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1')).permission.skill, { '*': 'allow', summarize: 'deny' });
    assert.equal(remove(added, ['permission', 'skill', 'summarize']), text);
  });

  it('a comma-first trailing comma without a comment stays too', () => {
    const text = '{\n  "a": 1\n  ,\n}\n';
    assert.equal(remove(set(text, ['z'], 'deny'), ['z']), text);
  });

  it('in a list: a comma-first trailing comma after a commented last item', () => {
    const text = '{\n  "l": [\n    1 // one\n    ,\n  ]\n}\n';
    const added = appendJsonItem(text, ['l'], 2, '\n', FILE);
    assert.equal(removeJsonItem(added, ['l'], 1, '\n', FILE), text);
  });

  it('`,/*x*/}` on one line comes back without a space before the bracket', () => {
    for (const text of ['{"a": 1,/*x*/}', '{"a": 1,/*x*/ }', '{"o": {"a": 1,/*x*/}}']) {
      const path = text.startsWith('{"o"') ? ['o', 'z'] : ['z'];
      assert.equal(remove(set(text, path, 'deny'), path), text, JSON.stringify(text));
    }
  });
});
