import { SfError } from '../errors/index.js';

/**
 * What a git checkout may write: a repository can hold a 1.5 GB blob of zeros that packs into a
 * few MB, or a "git bomb" of trees referencing one another that packs into a few KB and checks
 * out a billion files. The transfer limit sees neither, so both transports count the tree before
 * (and, over http, while) writing it, and stop at the first entry over the budget.
 */
export interface CheckoutBudget {
  maxBytes: number;
  /** entries: files, symlinks, submodules and directories (a bomb of empty trees has no files) */
  maxFiles: number;
  /** path segments of one entry */
  maxDepth: number;
}

export class CheckoutTally {
  files = 0;
  bytes = 0;

  constructor(
    private readonly budget: CheckoutBudget,
    private readonly shown: string,
  ) {}

  /** Counts one entry (file, symlink, submodule or directory) of `bytes` bytes; throws SF_E_LIMIT past the budget. */
  add(bytes: number): void {
    const over = this.count(bytes);
    if (over) throw over;
  }

  /** Counts one file like `add`; the SF_E_LIMIT error past the budget is returned, not thrown. */
  count(bytes: number): SfError | undefined {
    this.files++;
    this.bytes += bytes;
    if (this.files > this.budget.maxFiles) {
      return new SfError('SF_E_LIMIT', `${this.shown} would check out more than ${this.budget.maxFiles} files and directories; nothing was installed`, {
        hint: 'point the source at a smaller repository (a tree this large is not a SKIT, or is a "git bomb")',
        data: { url: this.shown, files: this.files, limit: this.budget.maxFiles },
      });
    }
    if (this.bytes > this.budget.maxBytes) {
      return new SfError('SF_E_LIMIT', `${this.shown} would check out more than ${this.budget.maxBytes} bytes; nothing was installed`, {
        hint: 'point the source at a smaller repository, or at a subpath of one with less content',
        data: { url: this.shown, bytes: this.bytes, limit: this.budget.maxBytes },
      });
    }
    return undefined;
  }

  /** Throws SF_E_LIMIT when an entry `depth` path segments deep (named by `path`) is deeper than the budget. */
  assertDepth(depth: number, path: () => string): void {
    if (depth <= this.budget.maxDepth) return;
    const shown = path();
    throw new SfError('SF_E_LIMIT', `${this.shown} has a path more than ${this.budget.maxDepth} directories deep (${shown.length > 200 ? `${shown.slice(0, 200)}...` : shown}); nothing was installed`, {
      hint: 'point the source at a repository with a shallower tree (a tree this deep is not a SKIT, or is a "git bomb")',
      data: { url: this.shown, depth, limit: this.budget.maxDepth },
    });
  }
}
