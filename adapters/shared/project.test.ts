import { strict as assert } from 'node:assert';
import { lstat, mkdir, readFile, readlink, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import type { ProjectionRecord } from '../../core/install/host-adapter.js';
import { DRIFT, diagnoseProjection } from './drift.js';
import type { LinkOps } from './fs-ops.js';
import { cleanStaleStaging, projectSkillDir } from './project.js';
import { removeProjectedPath } from './remove.js';

const failingLinks: LinkOps = {
  symlink: async () => {
    throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
  },
};

describe('adapters/shared: projection helpers', () => {
  let fx: AdapterFixture;
  let root: string;
  let store: string;
  beforeEach(async () => {
    fx = await adapterFixture();
    root = join(fx.project, '.agents', 'skills');
    store = join(fx.sfHome, 'store');
  });
  afterEach(() => fx.cleanup());

  it('links a skill directory into the store, atomically and idempotently', async () => {
    const dest = join(root, 'alpha');
    assert.equal(await projectSkillDir(fx.sourceDirs.alpha, dest, { mode: 'auto' }), 'symlink');
    assert.equal(await readlink(dest), fx.sourceDirs.alpha);
    assert.match(await readFile(join(dest, 'SKILL.md'), 'utf8'), /ALPHA-LOADED/);
    assert.equal(await projectSkillDir(fx.sourceDirs.alpha, dest, { mode: 'auto' }), 'symlink');
    // no staging leftovers next to the root, and nothing else in the root
    assert.deepEqual(await readdir(join(fx.project, '.agents')), ['skills']);
    assert.deepEqual(await readdir(root), ['alpha']);
  });

  it('falls back to a durable copy when links fail, and replaces a link with a copy', async () => {
    const dest = join(root, 'alpha');
    await projectSkillDir(fx.sourceDirs.beta, dest, { mode: 'auto' });
    assert.equal(await projectSkillDir(fx.sourceDirs.alpha, dest, { mode: 'auto', link: failingLinks }), 'copy');
    assert.ok((await lstat(dest)).isDirectory());
    assert.equal(await readFile(join(dest, 'SKILL.md'), 'utf8'), await readFile(join(fx.sourceDirs.alpha, 'SKILL.md'), 'utf8'));
    // mode symlink means links or nothing
    await assert.rejects(projectSkillDir(fx.sourceDirs.alpha, join(root, 'x'), { mode: 'symlink', link: failingLinks }), /not permitted/);
  });

  it('in auto mode, keeps a copy a copy when it replaces it (an update without SF_PROJECTION_MODE=copy)', async () => {
    const dest = join(root, 'alpha');
    assert.equal(await projectSkillDir(fx.sourceDirs.alpha, dest, { mode: 'copy' }), 'copy');
    assert.equal(await projectSkillDir(fx.sourceDirs.beta, dest, { mode: 'auto' }), 'copy');
    assert.ok((await lstat(dest)).isDirectory());
    assert.equal(await readFile(join(dest, 'SKILL.md'), 'utf8'), await readFile(join(fx.sourceDirs.beta, 'SKILL.md'), 'utf8'));
    // asked for explicitly, links replace it
    assert.equal(await projectSkillDir(fx.sourceDirs.alpha, dest, { mode: 'symlink' }), 'symlink');
  });

  it('removes only what Forge put there', async () => {
    const link = join(root, 'alpha');
    await projectSkillDir(fx.sourceDirs.alpha, link, { mode: 'auto' });
    assert.equal(await removeProjectedPath({ skillId: 'acme/kit:alpha', path: link, mode: 'symlink' }, store), 'removed');
    assert.equal(await removeProjectedPath({ skillId: 'acme/kit:alpha', path: link, mode: 'symlink' }, store), 'absent');

    const mine = join(root, 'beta');
    await mkdir(mine, { recursive: true });
    await writeFile(join(mine, 'SKILL.md'), 'the user wrote this');
    assert.equal(await removeProjectedPath({ skillId: 'acme/kit:beta', path: mine, mode: 'symlink' }, store), 'kept-foreign');
    const elsewhere = join(root, 'gamma');
    await symlink(fx.home, elsewhere);
    assert.equal(await removeProjectedPath({ skillId: 'acme/kit:gamma', path: elsewhere, mode: 'symlink' }, store), 'kept-foreign');
    assert.equal(await readFile(join(mine, 'SKILL.md'), 'utf8'), 'the user wrote this');

    const copy = join(root, 'delta');
    await projectSkillDir(fx.sourceDirs.alpha, copy, { mode: 'copy' });
    assert.equal(await removeProjectedPath({ skillId: 'acme/kit:delta', path: copy, mode: 'copy' }, store), 'removed');
    await assert.rejects(lstat(copy), /ENOENT/);
  });

  it('cleans staging entries of dead processes only', async () => {
    const staging = join(fx.project, '.agents', '.sf-tmp');
    await mkdir(join(staging, 'alpha.new.999999999.abc'), { recursive: true });
    await mkdir(join(staging, `beta.new.${process.pid}.abc`), { recursive: true });
    await cleanStaleStaging(root);
    assert.deepEqual(await readdir(staging), [`beta.new.${process.pid}.abc`]);
  });

  describe('drift', () => {
    const record = (paths: ProjectionRecord['paths']): ProjectionRecord => ({ agent: 'cursor', scope: 'project', projectRoot: fx.project, skillRoot: root, paths, configEdits: [] });
    const codes = async (rec: ProjectionRecord, disabled: string[] = []) =>
      (await diagnoseProjection(fx.request(disabled), rec, { nativeEnablement: false, storeRoot: store })).map((d) => `${d.code} ${d.file?.slice(root.length + 1)}`).sort();

    it('is clean right after projection', async () => {
      await projectSkillDir(fx.sourceDirs.alpha, join(root, 'alpha'), { mode: 'auto' });
      await projectSkillDir(fx.sourceDirs.beta, join(root, 'beta'), { mode: 'copy' });
      assert.deepEqual(await codes(record([{ skillId: 'acme/kit:alpha', path: join(root, 'alpha'), mode: 'symlink' }, { skillId: 'acme/kit:beta', path: join(root, 'beta'), mode: 'copy' }])), []);
    });

    it('finds missing, dangling, wrong and foreign links, modified copies and exposed disabled skills', async () => {
      const alpha = join(root, 'alpha');
      const beta = join(root, 'beta');
      await projectSkillDir(fx.sourceDirs.beta, alpha, { mode: 'auto' });
      await projectSkillDir(fx.sourceDirs.beta, beta, { mode: 'copy' });
      await writeFile(join(beta, 'SKILL.md'), 'edited');
      const rec = record([
        { skillId: 'acme/kit:alpha', path: alpha, mode: 'symlink' },
        { skillId: 'acme/kit:beta', path: beta, mode: 'copy' },
      ]);
      assert.deepEqual(await codes(rec), [`${DRIFT.modified} beta`, `${DRIFT.wrongLink} alpha`]);

      await rm(alpha);
      assert.deepEqual(await codes(rec), [`${DRIFT.missing} alpha`, `${DRIFT.modified} beta`]);
      await symlink(join(store, 'gone'), alpha);
      assert.deepEqual((await codes(rec))[0], `${DRIFT.dangling} alpha`);
      await rm(alpha);
      await symlink(fx.home, alpha);
      assert.deepEqual((await codes(rec))[0], `${DRIFT.foreign} alpha`);
      await rm(alpha);
      await projectSkillDir(fx.sourceDirs.alpha, alpha, { mode: 'auto' });
      // alpha is disabled now but still linked
      assert.deepEqual(await codes(rec, ['alpha']), [`${DRIFT.disabledExposed} alpha`, `${DRIFT.modified} beta`]);
      await mkdir(join(fx.project, '.agents', '.sf-tmp', 'x.new.1.y'), { recursive: true });
      assert.ok((await codes(rec)).some((c) => c.startsWith(DRIFT.leftover)));
    });
  });
});
