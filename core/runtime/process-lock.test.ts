import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { acquireProcessLock, type ProcessLockLabels } from './process-lock.js';

const labels: ProcessLockLabels = {
  conflict: (holder) => `a widget runs here (pid ${holder})`,
  conflictHint: (holder) => `stop widget ${holder}`,
  what: 'the widget lock',
  openHint: 'check the widget directory',
};

describe('process lock', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (tmp = await tempDir('sf-process-lock-')));
  afterEach(() => tmp.cleanup());

  it('says what it guards in the conflict, and is free again once released', async () => {
    const file = join(tmp.path, 'widget.pid');
    const lock = await acquireProcessLock(file, labels);
    await assert.rejects(acquireProcessLock(file, labels), (e) =>
      isSfError(e, 'SF_E_CONFLICT') && e.message === `a widget runs here (pid ${process.pid})` && e.hint === `stop widget ${process.pid}`);
    await lock.release();
    await (await acquireProcessLock(file, labels)).release();
  });

});
