import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { fixturesDir } from '../../test-support/index.js';
import { parsePlainYaml } from './yaml-plain.js';
import { documentOffsets } from './yaml-positions.js';

/** What the yaml library makes of `text`, with the options frontmatter.ts uses. */
function viaLibrary(text: string) {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true, prettyErrors: false });
  return { clean: doc.errors.length === 0 && doc.warnings.length === 0, data: doc.toJS() ?? {}, offsets: documentOffsets(doc) };
}

/** The plain reader must either decline or agree with the yaml library exactly: values and positions. */
function assertAgrees(text: string): boolean {
  const plain = parsePlainYaml(text);
  if (!plain) return false;
  const lib = viaLibrary(text);
  assert.ok(lib.clean, `the yaml library reports problems in a document the plain reader accepted:\n${text}`);
  assert.deepEqual(plain.data, lib.data, text);
  assert.deepEqual([...plain.offsets].sort(), [...lib.offsets].sort(), text);
  return true;
}

// scalars the core schema resolves in every way, and strings that need quoting or another reader
const SCALARS = [
  'review', 'a b  c', 'x-y', 'skills/alpha', 'filesystem.read', 'review findings ordered by severity', 'a, b',
  'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'tRUE', 'null', 'Null', 'NULL', '~', 'yes', 'no', 'on', 'off',
  '0', '1', '42', '123456789012345', '1234567890123456', '007', '-1', '+1', '1.0', '1.0.0', '.5', '1e3', '0x1F', '0o17', '.inf', '-.inf', '.nan',
  'a:b', 'a: b', 'a #b', '#x', '-x', '- x', '?x', 'https://x.y/z', "it's", '"q"', '[x]', 'a]', '{a}', 'é', '@x', '%x', '`x`', '*x', '&x', '!x', '|', '>',
  'a\\b', 'a\tb', '', ' ',
];
const KEYS = ['name', 'path', 'skills', 'description', 'shared', 'from', 'to', 'id', 'skit', 'default_enabled', 'allowed-tools', '_x', 'X1',
  'true', 'null', 'Null', '1a', '12', 'a.b', '<<', 'x y', '__proto__', 'constructor', 'a:b'];

const STRAY = ['  more', ' more', '    - x', '- x', 'x', '  b: 1', '\tb: 1', '  # c', '...', '---', '-', '  -', 'a:', '  a: [x', ': x'];

type Value = { scalar: string } | { flow: string[] } | { seq: Value[] } | { map: [string, Value][] };

const { value } = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...SCALARS).map((scalar) => ({ scalar })),
    fc.array(fc.constantFrom(...SCALARS), { maxLength: 4 }).map((flow) => ({ flow })),
    fc.array(tie('value'), { maxLength: 3 }).map((seq) => ({ seq })),
    fc.array(fc.tuple(fc.constantFrom(...KEYS), tie('value')), { maxLength: 4 }).map((map) => ({ map })),
  ),
}));

interface Style {
  step: number;
  /** sequences at their key's own indentation */
  indentless: boolean;
  gap: string;
  trailing: string;
  blankLines: boolean;
}

const style: fc.Arbitrary<Style> = fc.record({
  step: fc.constantFrom(1, 2, 4),
  indentless: fc.boolean(),
  gap: fc.constantFrom(' ', '  ', ''),
  trailing: fc.constantFrom('', ' ', '  '),
  blankLines: fc.boolean(),
});

const pad = (n: number) => ' '.repeat(n);

/** Block YAML for a mapping's entries at `indent`. */
function mapLines(entries: [string, Value][], indent: number, s: Style): string[] {
  return entries.flatMap(([k, v]) => entryLines(`${pad(indent)}${k}:`, v, indent, s));
}

function entryLines(head: string, v: Value, indent: number, s: Style): string[] {
  if ('scalar' in v) return [`${head}${s.gap}${v.scalar}${s.trailing}`];
  if ('flow' in v) return [`${head}${s.gap}[${v.flow.join(', ')}]${s.trailing}`];
  if ('seq' in v) return [head, ...seqLines(v.seq, s.indentless ? indent : indent + s.step, s)];
  return [head, ...(s.blankLines ? [''] : []), ...mapLines(v.map, indent + s.step, s)];
}

function seqLines(items: Value[], indent: number, s: Style): string[] {
  return items.flatMap((item) => {
    if ('map' in item && item.map.length > 0) {
      // `- key: value` with the other keys lined up under the first
      const [first, ...rest] = mapLines(item.map, indent + 2, s);
      return [`${pad(indent)}- ${first.slice(indent + 2)}`, ...rest];
    }
    if ('scalar' in item) return [`${pad(indent)}- ${item.scalar}${s.trailing}`];
    if ('flow' in item) return [`${pad(indent)}- [${item.flow.join(', ')}]`];
    return [`${pad(indent)}-`, ...('seq' in item ? seqLines(item.seq, indent + s.step, s) : mapLines(item.map, indent + s.step, s))];
  });
}

describe('plain YAML (core/skit/yaml-plain)', () => {
  it('reads a SKIT descriptor exactly as the yaml library does', () => {
    const text = 'skit: 1\nid: acme/kit\nskills:\n  - name: review\n    path: skills/review\n    default_enabled: true\n    trigger_modes: [explicit, implicit]\n    approval_expectations: []\n    shared:\n      - from: shared/style\n        to: references/style\ncapabilities:\n  executables: []\n  hooks: []\n';
    assert.ok(assertAgrees(text));
  });

  it('declines what it does not read: quotes, comments, versions, multi-line and indentation it does not know', () => {
    for (const text of ['a: "x"\n', 'a: x # c\n', 'version: 1.0.0\n', 'a: b\n  c\n', 'a:\n   - x\n  - y\n', 'a: 1\na: 2\n', '- x\n', 'a: [x, [y]]\n', '\ta: 1\n', 'a:\n\tb: 1\n']) {
      assert.equal(parsePlainYaml(text), undefined, JSON.stringify(text));
    }
  });

  it('agrees with the yaml library on every generated document it accepts, and accepts most plain ones', () => {
    let accepted = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...KEYS), value), { maxLength: 5 }), style, fc.option(fc.tuple(fc.nat(), fc.constantFrom(...STRAY)), { freq: 2 }), (entries, s, stray) => {
        runs++;
        const lines = mapLines(entries, 0, s);
        // now and then a line that continues a scalar, breaks the indentation or is not YAML at all
        if (stray) lines.splice(stray[0] % (lines.length + 1), 0, stray[1]);
        if (assertAgrees(lines.join('\n') + '\n')) accepted++;
      }),
      { numRuns: 5_000 },
    );
    // the generator mixes in what needs the library; a reader that declined everything would pass vacuously
    assert.ok(accepted > runs / 20, `only ${accepted} of ${runs} documents were read without the yaml library`);
  });

  it('agrees with the yaml library on the frontmatter of every README.md and SKILL.md in fixtures/', () => {
    let checked = 0;
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name === 'README.md' || name === 'SKILL.md') {
          const m = /^---\r?\n([\s\S]*?\n)---[ \t]*\r?\n/.exec(readFileSync(path, 'utf8'));
          if (m && assertAgrees(m[1])) checked++;
        }
      }
    };
    walk(fixturesDir);
    assert.ok(checked > 10, `only ${checked} fixture frontmatters were read without the yaml library`);
  });
});
