import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';

/**
 * The per-user secret key of the pseudonymous repository fingerprints: 32 random bytes in
 * $SF_HOME/observer.key (0600), created once. Fingerprints are HMACs under it, so they are stable
 * on this machine but cannot be reversed or recomputed without the key.
 */
export async function loadOrCreateSecret(file: string): Promise<Buffer> {
  try {
    return parse(await readFile(file, 'utf8'), file);
  } catch (e) {
    if (!hasErrno(e, 'ENOENT')) throw e;
  }
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  try {
    const fh = await open(file, 'wx', 0o600);
    await fh.writeFile(randomBytes(32).toString('hex') + '\n');
    await fh.sync();
    await fh.close();
  } catch (e) {
    // another process created it first: use theirs
    if (!hasErrno(e, 'EEXIST')) throw e;
  }
  return parse(await readFile(file, 'utf8'), file);
}

function parse(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new SfError('SF_E_CONFIG', `${file} is not a 32-byte hex key`, { location: { file }, hint: 'delete it; a new key is created (repository fingerprints change once)' });
  }
  return Buffer.from(hex, 'hex');
}
