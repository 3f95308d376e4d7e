import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './support.js';

/**
 * `npm run bench [-- filter...]`: discovers bench/*.bench.ts, runs each (in file-name order) whose
 * name or file contains one of the filters, and prints a header per bench. Benches print their own
 * figures as ratios against a baseline measured in the same run; nothing here passes or fails.
 */

export interface Bench {
  name: string;
  run(): Promise<void>;
}

async function main(filters: string[]): Promise<number> {
  const dir = join(repoRoot, 'bench');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
  let ran = 0;
  let failed = 0;
  for (const file of files) {
    const bench = ((await import(pathToFileURL(join(dir, file)).href)) as { default: Bench }).default;
    if (filters.length > 0 && !filters.some((f) => file.includes(f) || bench.name.includes(f))) continue;
    ran++;
    process.stdout.write(`\n== ${bench.name} (bench/${file}) ==\n`);
    const start = Date.now();
    try {
      await bench.run();
    } catch (e) {
      failed++;
      process.stdout.write(`  FAILED: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    }
    process.stdout.write(`  (${((Date.now() - start) / 1000).toFixed(1)} s)\n`);
  }
  if (ran === 0) process.stdout.write(`no bench matches ${filters.join(', ')}; available: ${files.join(', ')}\n`);
  return failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e) => {
    process.stderr.write(`${String(e)}\n`);
    process.exitCode = 1;
  },
);
