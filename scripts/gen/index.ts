/**
 * `npm run gen`: regenerate TypeScript and docs from schemas/ (the single source of truth).
 *   npm run gen                 write every stale generated file
 *   npm run gen -- --check      list stale files and exit 1 without writing
 *   npm run gen -- --root DIR   run against another checkout (used by tests)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkGenerated, writeAll } from './generate.js';

function parseArgs(argv: string[]): { check: boolean; root: string } {
  let check = false;
  let root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--check') check = true;
    else if (arg === '--root' && argv[i + 1] !== undefined) root = path.resolve(argv[++i]!);
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; usage: npm run gen [-- --check] [--root DIR]`);
  }
  return { check, root };
}

async function main(): Promise<void> {
  const { check, root } = parseArgs(process.argv.slice(2));
  if (check) {
    const stale = await checkGenerated(root);
    if (stale.length === 0) {
      process.stdout.write('generated files are up to date\n');
      return;
    }
    process.stderr.write(`${stale.length} generated file(s) are stale:\n`);
    for (const s of stale) process.stderr.write(`  ${s.path} (${s.reason})\n`);
    process.stderr.write('run `npm run gen` and commit the result\n');
    process.exitCode = 1;
    return;
  }
  const changed = await writeAll(root);
  if (changed.length === 0) process.stdout.write('generated files are up to date\n');
  for (const s of changed) process.stdout.write(`${s.reason === 'orphaned' ? 'removed' : 'wrote'} ${s.path}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`npm run gen failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 2;
});
