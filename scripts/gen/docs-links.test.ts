import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../../test-support/index.js';

/** Every Markdown page a user reads: README.md and docs/ (with the vendored spec). */
function pages(dir = join(repoRoot, 'docs')): string[] {
  const found = dir === join(repoRoot, 'docs') ? [join(repoRoot, 'README.md')] : [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...pages(join(dir, entry.name)));
    else if (entry.name.endsWith('.md')) found.push(join(dir, entry.name));
  }
  return found;
}

describe('documentation links', () => {
  it('point at files inside the repository that exist (a link out of the checkout is dead on GitHub and in every clone)', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const abs = resolve(dirname(page), decodeURIComponent(target.split('#')[0]));
        const rel = relative(repoRoot, abs);
        if (rel === '..' || rel.startsWith(`..${sep}`) || !existsSync(abs)) broken.push(`${relative(repoRoot, page)}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
