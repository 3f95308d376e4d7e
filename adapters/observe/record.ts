import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SfError, hasErrno } from '../../core/errors/index.js';
import { writeFileAtomic } from '../config/atomic-write.js';
import type { ServiceRecord } from '../../core/observer/user-service.js';
import type { ObserveHostId, ObserveHostRecord } from './types.js';

/**
 * `$SF_HOME/observe/install.json` (0600): what `sf observe install` changed on this machine, so
 * `update`, `doctor` and `uninstall` touch exactly Forge's blocks and files. It holds paths,
 * hashes and the values Forge wrote; never a credential.
 */

export interface ObserveInstallRecord {
  schema: 1;
  version: string;
  installedAt: string;
  updatedAt: string;
  port: number;
  hosts: Partial<Record<ObserveHostId, ObserveHostRecord>>;
  service?: ServiceRecord;
}

export const installRecordPath = (sfHome: string): string => join(sfHome, 'observe', 'install.json');

export async function readInstallRecord(sfHome: string): Promise<ObserveInstallRecord | undefined> {
  const file = installRecordPath(sfHome);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
  try {
    const rec = JSON.parse(text) as ObserveInstallRecord;
    if (rec?.schema === 1 && typeof rec.hosts === 'object' && rec.hosts !== null) return rec;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
  }
  throw new SfError('SF_E_CONFIG', `${file} is not a Forge observe install record`, {
    location: { file }, hint: 'move it away and run `sf observe install` again (configs Forge edited keep their "managed by sf" markers)',
  });
}

export async function writeInstallRecord(sfHome: string, rec: ObserveInstallRecord): Promise<void> {
  await writeFileAtomic(installRecordPath(sfHome), JSON.stringify(rec, null, 2) + '\n', { mode: 0o600 });
}
