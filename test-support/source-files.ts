import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Every non-test TypeScript source file below `dir` (generated code and node_modules left out): for tests that check the code base itself. */
export async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'generated') out.push(...(await sourceFiles(p)));
    else if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}
