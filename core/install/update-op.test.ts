import { strict as assert } from 'node:assert';
import { isSfError } from '../errors/index.js';
import type { InstallationRecord } from '../library/types.js';
import { refuseDowngrade } from './update-op.js';

describe('sf skit update never downgrades by itself', () => {
  const installed = { skitId: 'alice/kq', release: { version: '2.0.0' }, source: { kind: 'hub', canonical: 'http://hub.test/s/alice/kq', fingerprint: 'f'.repeat(64), range: '^2.0.0' } } as InstallationRecord;

  it('refuses a newest release older than the installed one (newer ones quarantined or withdrawn), naming both', () => {
    assert.throws(() => refuseDowngrade(installed, '1.0.0', { ids: 'all' }), (e) => isSfError(e, 'SF_E_CONFLICT') && /within \^2\.0\.0 is 1\.0\.0, older than the installed 2\.0\.0/.test(e.message) && /--version 1\.0\.0/.test(e.hint ?? ''));
  });

  it('moves up, stays, or goes down when a --version asks for it; sources without versions are not compared', () => {
    for (const to of ['2.0.0', '2.0.1', '10.0.0']) refuseDowngrade(installed, to, { ids: 'all' });
    refuseDowngrade(installed, '1.0.0', { ids: ['alice/kq'], version: '1.0.0' });
    refuseDowngrade({ ...installed, release: { ref: 'main', commit: 'a'.repeat(40) } } as InstallationRecord, undefined, { ids: 'all' });
  });
});
