import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GENERIC_AGENTS } from '../../adapters/generic/agents.js';
import { repoRoot } from '../../test-support/index.js';

/**
 * What the program prints or reads that its users key on, checked against the hand-written docs:
 * the finding codes live in the code that emits them (no single catalog to generate a table from),
 * so a new code without a line in docs/ fails here. `SF_E_*` codes are generated (docs/errors.md).
 */

const SOURCE_DIRS = ['core', 'adapters', 'cli', 'hub'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'test-support' && entry.name !== 'fixtures') out.push(...sourceFiles(path));
    } else if (/\.c?ts$/.test(entry.name) && !entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const docsText = (): string =>
  [join(repoRoot, 'README.md'), ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(repoRoot, 'docs', f))]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');

describe('docs cover what users key on', () => {
  it('every finding code (doctor, install, observe, collector) appears in README.md or docs/', () => {
    const docs = docsText();
    const missing = new Set<string>();
    for (const dir of SOURCE_DIRS) {
      for (const file of sourceFiles(join(repoRoot, dir))) {
        for (const [, code] of readFileSync(file, 'utf8').matchAll(/\bcode: '(SF_(?!E_)[A-Z0-9_]+)'/g)) {
          if (!new RegExp(`\\b${code}\\b`).test(docs)) missing.add(`${code} (${relative(repoRoot, file)})`);
        }
      }
    }
    assert.deepEqual([...missing].sort(), []);
  });

  it("every agent home variable sf reads (adapters/generic/agents.ts) is in docs/environment.md", () => {
    const env = readFileSync(join(repoRoot, 'docs', 'environment.md'), 'utf8');
    const vars = new Set<string>();
    for (const a of GENERIC_AGENTS) {
      for (const template of [a.user, a.project, ...(a.legacyUser ?? []), ...a.detect]) {
        for (const [, name] of (template ?? '').matchAll(/\$\{([A-Z0-9_]+):-/g)) vars.add(name);
      }
    }
    assert.ok(vars.has('AUTOHAND_HOME'), 'the templates were read');
    assert.deepEqual([...vars].filter((v) => !env.includes(`\`${v}\``)).sort(), []);
  });
});
