import { generateErrorCodes } from './error-codes.js';
import { findStale, writeGenerated, type GeneratedFile, type StaleFile } from './files.js';
import { generateJsonTypes } from './json-types.js';
import { generateSemconv } from './semconv.js';
import { generateValidators } from './validators.js';

/** Every file the generator produces from schemas/, sorted by path. */
export async function generateAll(root: string): Promise<GeneratedFile[]> {
  const files = [...(await generateSemconv(root)), ...(await generateErrorCodes(root)), ...(await generateJsonTypes(root)), ...(await generateValidators(root))];
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`two generators produce ${f.path}; rename one of the sources`);
    seen.add(f.path);
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Check mode: which generated files are missing, outdated or orphaned. Writes nothing. */
export async function checkGenerated(root: string): Promise<StaleFile[]> {
  return findStale(root, await generateAll(root));
}

/** Write mode: bring every generated file up to date. Returns the files that changed. */
export async function writeAll(root: string): Promise<StaleFile[]> {
  return writeGenerated(root, await generateAll(root));
}
