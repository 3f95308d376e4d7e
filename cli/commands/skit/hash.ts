import { command, flag, optional, positional, string } from 'cmd-ts';
import { resolve } from 'node:path';
import type { SkitHashes } from '../../../core/skit/hash.js';
import type { ValidationResult } from '../../../core/skit/validate.js';
import { err, out, printDiagnostics, printJson, printTable } from '../../output/print.js';
import { invalidSkit } from './invalid-skit.js';
import { trace } from '../../../core/trace/startup.js';
import { bold, dim } from '../../output/style.js';

export const hashCommand = command({
  name: 'hash',
  description: 'Print the bundle hash, per-skill content hashes and file inventory of the SKIT in [path] (spec: schemas/hashing.md)',
  args: {
    path: positional({ type: optional(string), displayName: 'path', description: 'SKIT or single-skill directory (default: the current directory)' }),
    json: flag({ long: 'json', description: 'machine output (schemas/json/hash-listing.schema.json)' }),
  },
  handler: async ({ path, json }) => {
    const root = resolve(path ?? '.');
    // Files start streaming through the hash workers while the SKIT is validated.
    const { startTreeDigests } = await import('../../../core/skit/tree-digests.js');
    const early = startTreeDigests(root);
    trace('hash: walked, hashing started');
    // One walk serves both. Validation reads README.md and SKILL.md files itself; the first bytes
    // of every other file come from the hashing, which this thread joins for files the workers
    // have not reached yet, so each file is opened once.
    const { validateSkitDirSync } = await import('../../../core/skit/validate.js');
    let validation: ValidationResult;
    try {
      validation = validateSkitDirSync(root, early.tree ? { tree: early.tree, readHead: (f) => early.headFor(f) } : {});
    } catch (e) {
      early.cancel();
      throw e;
    }
    trace('hash: validated');
    if (!validation.ok || !validation.layout) {
      early.cancel();
      if (!json) printDiagnostics(validation.diagnostics, 'stderr');
      throw invalidSkit(root, 'hashed', validation.diagnostics);
    }
    const { hashSkit } = await import('../../../core/skit/hash.js');
    const hashes = await hashSkit(root, validation.layout, { digests: early });
    trace('hash: hashed');
    if (json) printJson(hashes);
    else render(hashes, validation.diagnostics.length);
    trace('hash: printed');
  },
});

function render(h: SkitHashes, findings: number): void {
  out(`${bold('SKIT')}    ${h.id}`);
  out(`${bold('bundle')}  ${h.bundle}`);
  out();
  printTable(
    ['SKILL', 'HASH', 'FILES'],
    h.skills.map((s) => [s.id, s.hash, s.files.length]),
  );
  out();
  const total = h.files.reduce((sum, f) => sum + f.size, 0);
  printTable(
    ['MODE', 'SIZE', 'SHA256', 'PATH'],
    h.files.map((f) => [f.mode, String(f.size).padStart(10), f.sha256.slice(0, 12), f.path]),
  );
  out(dim(`${h.files.length} files, ${total} bytes`));
  if (findings > 0) err(dim(`${findings} validation finding(s) without errors; see \`sf skit validate\``));
}
