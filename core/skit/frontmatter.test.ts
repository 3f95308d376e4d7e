import assert from 'node:assert/strict';
import { hasFrontmatter, MAX_FRONTMATTER_BYTES, parseFrontmatter } from './frontmatter.js';

describe('frontmatter', () => {
  it('parses a block and gives the body and its first line', () => {
    const { frontmatter, problems } = parseFrontmatter('---\nname: a\ndescription: b\n---\n# Title\nText\n');
    assert.deepEqual(problems, []);
    assert.deepEqual(frontmatter?.data, { name: 'a', description: 'b' });
    assert.equal(frontmatter?.body, '# Title\nText\n');
    assert.equal(frontmatter?.bodyLine, 5);
  });

  it('refuses frontmatter nested over 100 levels, however deep, without leaking a stack overflow', () => {
    const block = '---\nname: a\nmetadata:\n' + Array.from({ length: 150 }, (_, i) => `${' '.repeat(i + 1)}k${i}:\n`).join('') + ' '.repeat(151) + 'v\n---\n';
    const deep = parseFrontmatter(block);
    assert.equal(deep.frontmatter, undefined);
    assert.match(deep.problems[0].message, /nests more than 100 levels deep/);
    const list = parseFrontmatter(`---\nmetadata:\n  k:\n    ${'- '.repeat(3000)}x\n---\n`);
    assert.equal(list.frontmatter, undefined);
    assert.ok(list.problems.every((p) => !/call stack/i.test(p.message)), JSON.stringify(list.problems));
    assert.match(list.problems[0].message, /nests/);
    const fine = parseFrontmatter('---\nname: a\nmetadata:\n' + Array.from({ length: 50 }, (_, i) => `${' '.repeat(i + 1)}k${i}:\n`).join('') + ' '.repeat(51) + 'v\n---\n');
    assert.deepEqual(fine.problems, []);
  });

  it('keeps a value containing --- whole (no truncation quirk)', () => {
    const { frontmatter } = parseFrontmatter('---\ndescription: a---b\nquoted: "x---y"\n---\nbody --- here\n');
    assert.deepEqual(frontmatter?.data, { description: 'a---b', quoted: 'x---y' });
    assert.equal(frontmatter?.body, 'body --- here\n');
  });

  it('accepts CRLF line ends and reports the same positions', () => {
    const text = '---\r\nname: a\r\nmetadata:\r\n  key: v\r\n---\r\nbody\r\n';
    const { frontmatter, problems } = parseFrontmatter(text);
    assert.deepEqual(problems, []);
    assert.deepEqual(frontmatter?.data, { name: 'a', metadata: { key: 'v' } });
    assert.deepEqual(frontmatter?.positions.locate('/metadata/key'), { line: 4, column: 3 });
    assert.equal(frontmatter?.body, 'body\r\n');
  });

  it('reports a BOM and still parses the block', () => {
    const { frontmatter, problems } = parseFrontmatter('\uFEFF---\nname: a\n---\n');
    assert.deepEqual(problems.map((p) => p.kind), ['bom']);
    assert.deepEqual(frontmatter?.data, { name: 'a' });
    assert.equal(hasFrontmatter('\uFEFF---\nx: 1\n---\n'), true);
  });

  it('reports a missing block, an unclosed block and a first line with more than ---', () => {
    assert.deepEqual(parseFrontmatter('# no frontmatter\n').problems.map((p) => p.kind), ['missing']);
    assert.deepEqual(parseFrontmatter('---\nname: a\n').problems.map((p) => p.kind), ['unclosed']);
    assert.deepEqual(parseFrontmatter('---').problems.map((p) => p.kind), ['unclosed']);
    assert.deepEqual(parseFrontmatter('--- # c\nname: a\n---\n').problems.map((p) => p.kind), ['missing']);
    assert.deepEqual(parseFrontmatter('----\nname: a\n---\n').problems.map((p) => p.kind), ['missing']);
  });

  it('refuses frontmatter whose closing line ends past 1 MiB, and sees the same in the first 1 MiB + 1 byte as in the whole file', () => {
    const MiB = MAX_FRONTMATTER_BYTES;
    // a block of `bytes` bytes up to and including the closing line's newline, in lines of `unit`
    const block = (bytes: number, unit: string, bom = false) => {
      const head = `${bom ? '\uFEFF' : ''}---\nname: a\ndescription: "`;
      const tail = '"\n---\n';
      const fill = bytes - Buffer.byteLength(head) - tail.length;
      const units = unit.repeat(Math.floor(fill / Buffer.byteLength(unit)));
      return `${head}${units}${'x'.repeat(fill - Buffer.byteLength(units))}${tail}`;
    };
    const window = (text: string) => Buffer.from(text).subarray(0, MiB + 1).toString('utf8');
    for (const unit of ['x', 'é', '😀']) {
      for (const bom of [false, true]) {
        // the closing line ends one byte before the limit, at it, and one byte past it
        for (const size of [MiB, MiB + 1, MiB + 2]) {
          const text = block(size, unit, bom) + 'body\n'.repeat(1000);
          assert.equal(Buffer.byteLength(block(size, unit, bom)), size, `${unit} ${size}`);
          const kinds = (t: string) => parseFrontmatter(t).problems.map((p) => p.kind).filter((k) => k !== 'bom');
          // the closing "---" ends at byte size - 1 (before its newline)
          const expected = size - 1 <= MiB ? [] : ['too-large'];
          assert.deepEqual(kinds(text), expected, `${JSON.stringify(unit)} bom=${bom} size=${size}`);
          assert.deepEqual(kinds(window(text)), expected, `window: ${JSON.stringify(unit)} bom=${bom} size=${size}`);
        }
      }
    }
    // unclosed, in lines: the window may end just after a newline, and must still say "too large"
    const lines = Array.from({ length: 110_000 }, (_, i) => `k${i}: v\n`).join('');
    for (let pad = 0; pad < 12; pad++) {
      const text = `---\nname: a\npad: a${'x'.repeat(pad)}\n${lines}`;
      assert.deepEqual(parseFrontmatter(window(text)).problems.map((p) => p.kind), ['too-large'], `window, pad ${pad}`);
      assert.deepEqual(parseFrontmatter(text).problems.map((p) => p.kind), ['too-large'], `whole, pad ${pad}`);
    }
    const big = parseFrontmatter(block(3 * MiB, 'x'));
    assert.match(big.problems[0].message, /larger than 1 MiB: no closing "---" line within the first 1048576 bytes/);
    assert.deepEqual(parseFrontmatter('---\nname: a\n' + 'k: v\n'.repeat(300_000)).problems.map((p) => p.kind), ['too-large'], 'unclosed and over the limit');
  });

  it('accepts delimiter lines with trailing spaces and an empty block as {}', () => {
    assert.deepEqual(parseFrontmatter('--- \nname: a\n---\t\n').frontmatter?.data, { name: 'a' });
    assert.deepEqual(parseFrontmatter('---\n---\n').frontmatter?.data, {});
  });

  it('places YAML errors on file lines (the block starts on line 2)', () => {
    const { frontmatter, problems } = parseFrontmatter('---\nname: a\ndescription: [open\n---\n');
    assert.equal(frontmatter, undefined);
    assert.equal(problems[0].kind, 'yaml');
    assert.ok(problems[0].line >= 3, `line ${problems[0].line}`);
  });

  it('rejects duplicate keys, unknown tags, tab indentation and collection keys like js-yaml', () => {
    for (const yaml of ['a: 1\na: 2', 'a: !secret x', 'm:\n\tk: v', '? [a]\n: 1']) {
      const { problems } = parseFrontmatter(`---\n${yaml}\n---\n`);
      assert.ok(problems.some((p) => p.kind === 'yaml'), yaml);
    }
  });

  it('refuses alias expansion beyond the limit (billion laughs)', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++) lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`);
    const { frontmatter, problems } = parseFrontmatter(`---\n${lines.join('\n')}\n---\n`);
    assert.equal(frontmatter, undefined);
    assert.ok(problems.some((p) => p.kind === 'yaml'));
  });

  it('flags a list or scalar block as not a mapping but still returns it', () => {
    const list = parseFrontmatter('---\n- a\n- b\n---\n');
    assert.deepEqual(list.problems.map((p) => p.kind), ['not-mapping']);
    assert.deepEqual(list.frontmatter?.data, ['a', 'b']);
    assert.deepEqual(parseFrontmatter('---\njust text\n---\n').problems.map((p) => p.kind), ['not-mapping']);
  });

  it('locates keys, sequence items and missing keys (nearest ancestor)', () => {
    const text = '---\nskit: 1\nskills:\n  - name: a\n    path: skills/a\n  - name: b\n---\n';
    const { frontmatter } = parseFrontmatter(text);
    const at = frontmatter!.positions;
    assert.deepEqual(at.locate('/skills'), { line: 3, column: 1 });
    assert.deepEqual(at.locate('/skills/1'), { line: 6, column: 5 });
    assert.deepEqual(at.locate('/skills/0/path'), { line: 5, column: 5 });
    assert.deepEqual(at.locate('/skills/1/path'), { line: 6, column: 5 });
    assert.deepEqual(at.locate(''), { line: 2, column: 1 });
  });
});
