import { copyFile, mkdir, open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir } from '../../core/fs/atomic.js';

/**
 * Copies a store skill directory (regular files and directories only; the store holds nothing
 * else) to `dest`, keeping the exec bit, and fsyncs every file and directory so the copy is
 * durable before it is renamed into place.
 */
export async function copyTreeDurable(src: string, dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  const entries = await readdir(src, { withFileTypes: true });
  await Promise.all(
    entries.map(async (entry) => {
      const from = join(src, entry.name);
      const to = join(dest, entry.name);
      if (entry.isDirectory()) return copyTreeDurable(from, to);
      if (!entry.isFile()) return;
      await copyFile(from, to);
      const mode = (await stat(from)).mode & 0o777;
      const fh = await open(to, 'r+');
      try {
        await fh.chmod(mode);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }),
  );
  await fsyncDir(dest);
}
