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
    if (rec?.schema === 1 && isObject(rec.hosts) && Object.values(rec.hosts).every(isHostRecord)) return rec;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
  }
  throw new SfError('SF_E_CONFIG', `${file} is not a Forge observe install record`, {
    location: { file }, hint: 'move it away and run `sf observe install` again (configs Forge edited keep their "managed by sf" markers)',
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parts of a host record that update, doctor and uninstall walk (a hand-edited file may lack them). */
function isHostRecord(v: unknown): boolean {
  if (!isObject(v) || typeof v.agent !== 'string' || !Array.isArray(v.jsonEdits) || !Array.isArray(v.tomlEdits) || !Array.isArray(v.files)) return false;
  const jsonOk = v.jsonEdits.every((e) => isObject(e) && typeof e.file === 'string' && Array.isArray(e.managed) && Array.isArray(e.items));
  const tomlOk = v.tomlEdits.every((e) => isObject(e) && typeof e.file === 'string');
  const filesOk = v.files.every((f) => isObject(f) && typeof f.path === 'string');
  return jsonOk && tomlOk && filesOk;
}

export async function writeInstallRecord(sfHome: string, rec: ObserveInstallRecord): Promise<void> {
  await writeFileAtomic(installRecordPath(sfHome), JSON.stringify(rec, null, 2) + '\n', { mode: 0o600 });
}
