import { createHash } from 'node:crypto';
import { basename, join, resolve } from 'node:path';
import { mkdirDurableSync, writeFileAtomic } from './atomic-write.js';

/** `20250101T120000123Z`: sortable, filesystem-safe, unique enough with the path hash beside it. */
function timestamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace('.', '');
}

/**
 * Writes the previous bytes of `file` to `backupDir` as `<timestamp>-<name>-<path hash>.bak`
 * (mode 0600: host configs can hold tokens) and returns the backup path.
 */
export async function writeBackup(file: string, bytes: Buffer, backupDir: string, now = new Date()): Promise<string> {
  // the backup must outlive a power cut as surely as the edit it saves a copy for
  mkdirDurableSync(backupDir, 0o700);
  const pathHash = createHash('sha256').update(resolve(file)).digest('hex').slice(0, 8);
  const name = `${timestamp(now)}-${basename(file).replace(/[^A-Za-z0-9._-]/g, '_')}-${pathHash}.bak`;
  const backup = join(backupDir, name);
  await writeFileAtomic(backup, bytes, { mode: 0o600 });
  return backup;
}
