import { open, readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { hasErrno, SfError } from '../errors/index.js';
import { contentNeed, HEAD_BYTES } from './capabilities.js';
import { resolveLimits, type SkitLimits } from './limits.js';
import { walkTree, type TreeFile } from './tree.js';
import { validateSkitLayout, type ValidationResult } from './validate-layout.js';

export type { ValidationResult } from './validate-layout.js';
export { validateSkitLayout, type SkitLayoutInput } from './validate-layout.js';

export interface ValidateOptions {
  /** quota overrides; defaults in core/skit/limits.ts */
  limits?: Partial<SkitLimits>;
  /** an already-parsed SKIT descriptor to use instead of README.md (e.g. synthesized by the sources resolver) */
  descriptor?: unknown;
  /** `provisional/<fingerprint>` for a SKIT without an id of its own (single-skill or synthesized) */
  provisionalId?: string;
}

/** Files read at once; enough to keep the disk busy without exhausting file descriptors. */
const READ_CONCURRENCY = 64;

/**
 * Validates the SKIT rooted at `root`: walks the tree once, reads README.md, every SKILL.md and
 * the agent config files in full and only the first bytes of everything else (to spot `#!`), then
 * applies every rule through the pure `validateSkitLayout`. Validation findings are returned as
 * diagnostics; only an unreadable root throws (SF_E_NOT_FOUND, SF_E_USAGE).
 */
export async function validateSkitDir(root: string, options: ValidateOptions = {}): Promise<ValidationResult> {
  const abs = resolve(root);
  await assertDirectory(abs);
  const tree = await walkTree(abs);
  const limits = resolveLimits(options.limits);
  const contents = await readContents(tree.files, limits.maxFileBytes);
  return validateSkitLayout({
    files: tree.files,
    oddities: tree.oddities,
    contents,
    rootName: basename(abs),
    descriptor: options.descriptor,
    limits: options.limits,
    provisionalId: options.provisionalId,
  });
}

async function assertDirectory(abs: string): Promise<void> {
  try {
    const st = await stat(abs);
    if (!st.isDirectory()) {
      throw new SfError('SF_E_USAGE', `${abs} is not a directory`, { location: { file: abs }, hint: 'pass the SKIT or skill directory (the one holding README.md or SKILL.md)' });
    }
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) throw new SfError('SF_E_NOT_FOUND', `${abs} does not exist`, { location: { file: abs }, hint: 'check the path' });
    throw e;
  }
}

/** Reads what the rules need, in parallel: full text for 'full' files, HEAD_BYTES for the rest. */
async function readContents(files: readonly TreeFile[], maxFileBytes: number): Promise<Map<string, Uint8Array>> {
  const contents = new Map<string, Uint8Array>();
  // a 'full' file over the per-file quota is not read at all: the quota error explains it
  const wanted = files.filter((f) => f.size > 0 && (contentNeed(f.path) === 'full' ? f.size <= maxFileBytes : f.mode !== 'exec'));
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const f = wanted[next++];
      try {
        contents.set(f.path, contentNeed(f.path) === 'full' ? await readFile(f.abs) : await readHead(f.abs));
      } catch (e) {
        // a file removed between the walk and the read is simply not there any more
        if (!hasErrno(e, 'ENOENT')) throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, wanted.length) }, worker));
  return contents;
}

async function readHead(abs: string): Promise<Uint8Array> {
  const fh = await open(abs, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
