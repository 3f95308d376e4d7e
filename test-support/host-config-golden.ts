import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { isSfError, type Diagnostic, type ErrorCode } from '../core/errors/index.js';
import type { ManagedConfigEdit } from '../adapters/config/managed.js';
import { fixturesDir, tempDir } from './index.js';

/** What one host's reconcile returns. */
export interface ReconcileResult {
  edit?: ManagedConfigEdit;
  diagnostics: Diagnostic[];
}

/** Applies Forge's state for the case ('install': alpha enabled, beta disabled) or removes it all ('remove'). */
export type Reconcile = (file: string, backupDir: string, previous: ManagedConfigEdit | undefined, phase: 'install' | 'remove') => Promise<ReconcileResult>;

export interface GoldenCase {
  name: string;
  /** the config file's name inside the temp dir (its extension picks before.<ext>/after.<ext>) */
  file: string;
  /** expect SfError with this code and the file untouched, instead of an after file */
  error?: ErrorCode;
  /** diagnostic codes expected from the install phase */
  diagnostics?: string[];
  /** remove does not restore the exact bytes (documented per case) */
  inexactRestore?: boolean;
}

/**
 * Runs one golden case from fixtures/host-configs/<host>/<case>/: before.<ext> (absent = the file
 * does not exist) -> install -> must equal after.<ext> (absent = the file must not exist) -> remove
 * -> must equal before again. UPDATE_GOLDEN=1 writes after.<ext> instead of comparing.
 */
export async function runGoldenCase(host: string, c: GoldenCase, reconcile: Reconcile): Promise<void> {
  const dir = join(fixturesDir, 'host-configs', host, c.name);
  const ext = c.file.slice(c.file.lastIndexOf('.'));
  const beforePath = join(dir, `before${ext}`);
  const afterPath = join(dir, `after${ext}`);
  const tmp = await tempDir('sf-golden-');
  try {
    const file = join(tmp.path, 'cfg', c.file);
    const backups = join(tmp.path, 'backups');
    await mkdir(join(tmp.path, 'cfg'), { recursive: true });
    const before = existsSync(beforePath) ? await readFile(beforePath) : null;
    if (before) await copyFile(beforePath, file);
    if (c.error) {
      await assert.rejects(reconcile(file, backups, undefined, 'install'), (e: unknown) => isSfError(e, c.error) && (e.location?.file === file));
      assert.deepEqual(await readFile(file), before, 'a refused edit must leave the file byte-identical');
      assert.equal(existsSync(backups) ? (await readdir(backups)).length : 0, 0, 'no backup for a refused edit');
      return;
    }
    const installed = await reconcile(file, backups, undefined, 'install');
    assert.deepEqual(installed.diagnostics.map((d) => d.code).sort(), [...(c.diagnostics ?? [])].sort());
    const after = existsSync(file) ? await readFile(file) : null;
    if (process.env.UPDATE_GOLDEN && after && !after.equals(before ?? Buffer.alloc(0))) {
      await mkdir(dir, { recursive: true });
      await writeFile(afterPath, after);
    }
    const expected = existsSync(afterPath) ? await readFile(afterPath) : before;
    assert.equal(after?.toString('utf8'), expected?.toString('utf8'), `${c.name}: merged file differs from ${afterPath}`);
    if (before && before.length > 0 && after && !after.equals(before)) {
      const [backup] = await readdir(backups);
      assert.deepEqual(await readFile(join(backups, backup)), before, 'the backup holds the previous bytes');
      assert.equal(installed.edit?.backup, join(backups, backup));
    }
    // idempotent: applying the same state again changes nothing
    const again = await reconcile(file, backups, installed.edit, 'install');
    assert.deepEqual(existsSync(file) ? await readFile(file) : null, after);
    assert.deepEqual(again.edit?.managed, installed.edit?.managed);
    const removed = await reconcile(file, backups, again.edit, 'remove');
    assert.equal(removed.edit, undefined, 'Forge owns nothing after remove');
    const restored = existsSync(file) ? await readFile(file) : null;
    if (!c.inexactRestore) assert.equal(restored?.toString('utf8'), before?.toString('utf8'), `${c.name}: remove must restore the original bytes`);
  } finally {
    await tmp.cleanup();
  }
}
