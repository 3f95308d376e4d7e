import { constants } from 'node:fs';
import { chmod, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { AcceptedEntry, EntrySink } from './types.js';

/** File modes written to disk: only two classes exist, whatever the archive said. */
export const FILE_MODE = { file: 0o644, exec: 0o755 } as const;
export const DIR_MODE = 0o755;

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Writes accepted entries below `root`, a private staging directory. Every file is created with
 * O_EXCL | O_NOFOLLOW (never through a symlink, never over an existing file) and then chmod-ed to
 * 0644/0755 so the umask does not change modes; directories are normalized to 0755 by
 * `normalizeDirectories()` once everything is written.
 */
export class DiskSink implements EntrySink {
  private readonly dirs = new Set<string>();

  constructor(private readonly root: string) {}

  private abs(path: string): string {
    return join(this.root, ...path.split('/'));
  }

  private async ensureDir(path: string): Promise<void> {
    if (path === '' || this.dirs.has(path)) return;
    await mkdir(this.abs(path), { recursive: true, mode: DIR_MODE });
    const segments = path.split('/');
    for (let i = 1; i <= segments.length; i++) this.dirs.add(segments.slice(0, i).join('/'));
  }

  async directory(entry: AcceptedEntry): Promise<void> {
    await this.ensureDir(entry.path);
  }

  async file(entry: AcceptedEntry, data: AsyncIterable<Buffer>): Promise<void> {
    const slash = entry.path.lastIndexOf('/');
    await this.ensureDir(slash === -1 ? '' : entry.path.slice(0, slash));
    const mode = FILE_MODE[entry.mode];
    const handle = await open(this.abs(entry.path), WRITE_FLAGS, mode);
    try {
      for await (const chunk of data) await handle.write(chunk);
      await handle.chmod(mode);
    } finally {
      await handle.close();
    }
  }

  /** Sets every directory created below the root to 0755 (mkdir's mode is masked by the umask). */
  async normalizeDirectories(): Promise<void> {
    for (const dir of this.dirs) await chmod(this.abs(dir), DIR_MODE);
  }
}
