import assert from 'node:assert/strict';
import { findManagedBlocks, splitLines } from './toml-blocks.js';
import { findManagedTables } from './toml-table.js';
import { linesStartingInString } from './toml-strings.js';

describe('TOML lines inside multi-line strings', () => {
  const inString = (text: string) => linesStartingInString(splitLines(text));

  it('marks the lines that begin inside """ and \'\'\' strings, and only those', () => {
    assert.deepEqual(inString('a = """\nx\n"""\nb = 1\n'), [false, true, true, false]);
    assert.deepEqual(inString("a = '''x\n\"\"\"\n'''\nb = 1\n"), [false, true, true, false]);
    // an escaped quote run and the up to two quotes before the closing delimiter stay in the string
    assert.deepEqual(inString('a = """x \\""" y\nz"""""\nb = 1\n'), [false, true, false]);
  });

  it('opens nothing from a comment or a one-line string', () => {
    assert.deepEqual(inString('# """\na = "\\"""" # """\nb = \'"""\'\nc = 1\n'), [false, false, false, false]);
  });

  it('finds no [otel] block of Forge\'s in a string, and the real one after it', () => {
    const block = '# managed by sf: observe\n[otel]\nlog_user_prompt = false\n';
    const text = `notes = """\n${block}"""\n\n${block}`;
    const found = findManagedTables(text, 'otel', 'observe');
    assert.equal(found.length, 1);
    assert.equal(found[0].start, 6);
    assert.deepEqual(findManagedBlocks('x = """\n# managed by sf: a/b:c\n[[skills.config]]\npath = "abc\n"""\n'), []);
  });
});
