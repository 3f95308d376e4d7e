import { SfError } from '../errors/index.js';

/**
 * What a git checkout may write: a repository can hold a 1.5 GB blob of zeros that packs into a
 * few MB, or a "git bomb" of trees referencing one another that packs into a few KB and checks
 * out a billion files. The transfer limit sees neither, so both transports count the tree before
 * (and, over http, while) writing it, and stop at the first file over the budget.
 */
export interface CheckoutBudget {
  maxBytes: number;
  maxFiles: number;
}

export class CheckoutTally {
  files = 0;
  bytes = 0;

  constructor(
    private readonly budget: CheckoutBudget,
    private readonly shown: string,
  ) {}

  /** Counts one file (blob, symlink or submodule entry) of `bytes` bytes; throws SF_E_LIMIT past the budget. */
  add(bytes: number): void {
    const over = this.count(bytes);
    if (over) throw over;
  }

  /** Counts one file like `add`; the SF_E_LIMIT error past the budget is returned, not thrown. */
  count(bytes: number): SfError | undefined {
    this.files++;
    this.bytes += bytes;
    if (this.files > this.budget.maxFiles) {
      return new SfError('SF_E_LIMIT', `${this.shown} would check out more than ${this.budget.maxFiles} files; nothing was installed`, {
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
}
