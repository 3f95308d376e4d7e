import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { repoRoot, tempDir } from '../../test-support/index.js';
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

  it('is one lock however its directory is named (through a link, with ..) in one process too', async () => {
    const dir = join(tmp.path, 'data');
    await mkdir(dir);
    await symlink(dir, join(tmp.path, 'alias'));
    const lock = await acquireProcessLock(join(dir, 'widget.pid'), labels);
    try {
      for (const other of [join(tmp.path, 'alias', 'widget.pid'), join(dir, '..', 'data', 'widget.pid')]) {
        await assert.rejects(acquireProcessLock(other, labels), (e) => isSfError(e, 'SF_E_CONFLICT'), other);
      }
    } finally {
      await lock.release();
    }
  });

  it('makes the pid file, its .lmdb and the .lmdb-lock owner-only under umask 0, lock files left 0664 by an earlier version too', async function () {
    this.timeout(20_000);
    const script = join(tmp.path, 'umask.mts');
    await writeFile(script, [
      `import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';`,
      `import { acquireProcessLock } from ${JSON.stringify(join(repoRoot, 'core', 'runtime', 'process-lock.ts'))};`,
      `process.umask(0);`,
      `const [dir, round] = process.argv.slice(2);`,
      // what an earlier version left: the lock files made with lmdb's default mode (LMDB sets up empty ones)
      `if (round === 'earlier') { mkdirSync(dir); for (const f of ['w.pid.lmdb', 'w.pid.lmdb-lock']) writeFileSync(dir + '/' + f, '', { mode: 0o664 }); }`,
      `const lock = await acquireProcessLock(dir + '/w.pid', { conflict: String, conflictHint: String, what: 'w', openHint: 'w' });`,
      `const modes = Object.fromEntries(readdirSync(dir).map((n) => [n, (statSync(dir + '/' + n).mode & 0o777).toString(8)]));`,
      `await lock.release();`,
      `console.log(JSON.stringify(modes));`,
    ].join('\n'));
    for (const round of ['new', 'earlier']) {
      const dir = join(tmp.path, round);
      const modes = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script, dir, round], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exited ${code}`))));
      });
      assert.deepEqual(JSON.parse(modes), { 'w.pid': '600', 'w.pid.lmdb': '600', 'w.pid.lmdb-lock': '600' }, round);
    }
  });
});
