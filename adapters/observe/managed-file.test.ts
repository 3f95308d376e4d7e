import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { opencodeObserveAdapter, opencodePluginPath } from '../opencode/observe.js';
import { observeContext } from './registry.js';
import type { ObserveContext } from './types.js';

describe('Forge-managed files (the OpenCode plugin): a file the user edited', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let ctx: ObserveContext;
  beforeEach(async () => {
    tmp = await tempDir('sf-managed-file-');
    const sfHome = join(tmp.path, '.sf');
    ctx = observeContext({ HOME: tmp.path, SF_HOME: sfHome, XDG_CONFIG_HOME: join(tmp.path, '.config') }, 14318);
    await mkdir(join(tmp.path, '.config', 'opencode'), { recursive: true });
  });
  afterEach(() => tmp.cleanup());

  it('update writes Forge\'s version back only after saving the user\'s edits in the observe backups, and says where', async () => {
    const { record } = await opencodeObserveAdapter.apply(ctx, undefined);
    const path = opencodePluginPath(ctx);
    const forge = await readFile(path, 'utf8');
    await writeFile(path, '// my edits\n' + forge);
    const { record: updated, diagnostics } = await opencodeObserveAdapter.apply(ctx, record);
    assert.equal(await readFile(path, 'utf8'), forge, 'Forge\'s version is back');
    const backups = await readdir(ctx.backupDir);
    assert.equal(backups.length, 1, 'the edited file was backed up');
    assert.equal(await readFile(join(ctx.backupDir, backups[0]), 'utf8'), '// my edits\n' + forge);
    assert.deepEqual(diagnostics.map((d) => `${d.code}:${d.severity}`), ['SF_OBSERVE_FILE_CHANGED:warning']);
    assert.ok(diagnostics[0].message.includes(join(ctx.backupDir, backups[0])), diagnostics[0].message);
    assert.deepEqual(await opencodeObserveAdapter.diagnose(ctx, updated), []);
  });

  it('an unchanged file (a new Forge version, a port change) is rewritten without a backup', async () => {
    const { record } = await opencodeObserveAdapter.apply(ctx, undefined);
    const { diagnostics } = await opencodeObserveAdapter.apply({ ...ctx, port: 15000 }, record);
    assert.deepEqual(diagnostics, []);
    assert.match(await readFile(opencodePluginPath(ctx), 'utf8'), /127\.0\.0\.1:15000/);
    await assert.rejects(readdir(ctx.backupDir), /ENOENT/);
  });

  it('doctor\'s hint for an edited file says update keeps a copy of it', async () => {
    const { record } = await opencodeObserveAdapter.apply(ctx, undefined);
    await writeFile(opencodePluginPath(ctx), '// mine\n');
    const [d] = await opencodeObserveAdapter.diagnose(ctx, record);
    assert.match(d.hint ?? '', /backup|copy/);
  });
});
