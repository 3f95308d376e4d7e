import { statSync, type Stats, promises as fsp } from 'node:fs';
import { basename, resolve } from 'node:path';
import { hasErrno, SfError } from '../errors/index.js';
import { resolveLimits, type SkitLimits } from './limits.js';
import { walkTree, type Tree, type TreeFile } from './tree.js';
import { walkTreeSync } from './tree-sync.js';
import { readValidationContents, readValidationContentsSync } from './validate-contents.js';
import { validateSkitLayout, type ContentSource, type ValidationResult } from './validate-layout.js';

export type { ValidationResult } from './validate-layout.js';
export { validateSkitLayout, type SkitLayoutInput } from './validate-layout.js';

export interface ValidateOptions {
  /** quota overrides; defaults in core/skit/limits.ts */
  limits?: Partial<SkitLimits>;
  /** an already-parsed SKIT descriptor to use instead of README.md (e.g. synthesized by the sources resolver) */
  descriptor?: unknown;
  /** `provisional/<fingerprint>` for a SKIT without an id of its own (single-skill or synthesized) */
  provisionalId?: string;
  /**
   * The directory name a single skill at the root must match (default: the root's own name). null
   * when the root is a scratch directory whose name means nothing (an unpacked archive, a clone).
   */
  rootName?: string | null;
  /**
   * The tree of `root` as walkTree/walkTreeSync listed it, when the caller has walked it already
   * (e.g. `sf skit hash`, which walks once for hashing and validation); otherwise it is walked here.
   */
  tree?: Tree;
  /**
   * Where validateSkitDirSync gets the first bytes of a file it does not read in full (default:
   * it reads them): `sf skit hash` takes them from its hashing, so no file is opened twice.
   */
  readHead?: (file: TreeFile) => Uint8Array | undefined;
}

/**
 * Validates the SKIT rooted at `root`: walks the tree once, reads README.md, every SKILL.md and
 * the agent config files in full and only the first bytes of everything else (to spot `#!`), then
 * applies every rule through the pure `validateSkitLayout`. Validation findings are returned as
 * diagnostics; only an unreadable root throws (SF_E_NOT_FOUND, SF_E_USAGE).
 */
export async function validateSkitDir(root: string, options: ValidateOptions = {}): Promise<ValidationResult> {
  const abs = resolve(root);
  assertDirectory(abs, await fsp.stat(abs).catch((e: unknown) => notFound(abs, e)));
  const tree = options.tree ?? (await walkTree(abs));
  const contents = await readValidationContents(tree.files, resolveLimits(options.limits).maxFileBytes);
  return validateTree(abs, tree, contents, options);
}

/**
 * validateSkitDir with synchronous IO, for a command line that waits for the result anyway: the
 * same result, in a fraction of the time on a SKIT of thousands of files. Blocks the event loop,
 * so servers use validateSkitDir.
 */
export function validateSkitDirSync(root: string, options: ValidateOptions = {}): ValidationResult {
  const abs = resolve(root);
  let st: Stats;
  try {
    st = statSync(abs);
  } catch (e) {
    notFound(abs, e);
  }
  assertDirectory(abs, st);
  const tree = options.tree ?? walkTreeSync(abs);
  const contents = readValidationContentsSync(tree.files, resolveLimits(options.limits).maxFileBytes, options.readHead);
  return validateTree(abs, tree, contents, options);
}

function validateTree(abs: string, tree: Tree, contents: ContentSource, options: ValidateOptions): ValidationResult {
  return validateSkitLayout({
    files: tree.files,
    oddities: tree.oddities,
    contents,
    rootName: options.rootName === undefined ? basename(abs) : (options.rootName ?? undefined),
    descriptor: options.descriptor,
    limits: options.limits,
    provisionalId: options.provisionalId,
  });
}

function assertDirectory(abs: string, st: Stats): void {
  if (!st.isDirectory()) {
    throw new SfError('SF_E_USAGE', `${abs} is not a directory`, { location: { file: abs }, hint: 'pass the SKIT or skill directory (the one holding README.md or SKILL.md)' });
  }
}

/** Rethrows a failed stat of the root: SF_E_NOT_FOUND when it does not exist. */
function notFound(abs: string, e: unknown): never {
  if (hasErrno(e, 'ENOENT')) throw new SfError('SF_E_NOT_FOUND', `${abs} does not exist`, { location: { file: abs }, hint: 'check the path' });
  throw e;
}
