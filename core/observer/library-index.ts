import { stat } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';
import { Library } from '../library/db.js';
import type { SfPaths } from '../library/paths.js';
import { buildSkillIndex, type SkillIndex } from '../telemetry/enrich/skill-index.js';

/**
 * The observer's view of the canonical library: the skill index, rebuilt when library.lmdb
 * changed (its mtime), checked at most every `minIntervalMs`. The library is opened only for the
 * read and closed again, so install commands are never blocked by the observer.
 */
export class LibraryIndex {
  private index: SkillIndex = { entries: [] };
  private mtime = -1;
  private checkedAt = 0;

  constructor(private readonly paths: SfPaths, private readonly minIntervalMs = 2000) {}

  get current(): SkillIndex {
    return this.index;
  }

  /** Rebuilds the index if the library changed since the last look. */
  async refresh(force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - this.checkedAt < this.minIntervalMs) return;
    this.checkedAt = now;
    let mtime: number;
    try {
      mtime = (await stat(this.paths.library)).mtimeMs;
    } catch (e) {
      if (hasErrno(e, 'ENOENT')) {
        this.index = { entries: [] };
        return;
      }
      throw e;
    }
    if (mtime === this.mtime && !force) return;
    const lib = await Library.open(this.paths, { create: false, readOnly: true });
    if (!lib) return;
    try {
      this.index = buildSkillIndex(lib.listInstallations());
      this.mtime = mtime;
    } finally {
      await lib.close();
    }
  }
}
