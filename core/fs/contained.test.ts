import assert from 'node:assert/strict';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { assertLandsInHome, assertLandsInProject, landingPath } from './contained.js';

describe('project containment of writes (core/fs/contained.ts)', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let project: string;
  let outside: string;
  beforeEach(async () => {
    tmp = await tempDir('sf-contained-');
    project = join(tmp.path, 'project');
    outside = join(tmp.path, 'outside');
    await mkdir(join(project, 'shared'), { recursive: true });
    await mkdir(outside);
  });
  afterEach(() => tmp.cleanup());

  const refused = (path: string) => {
    try {
      assertLandsInProject(path, project, 'the test directory');
      return false;
    } catch (e) {
      assert.ok(isSfError(e, 'SF_E_UNSAFE_PATH'), String(e));
      return true;
    }
  };

  it('follows links in the existing part of a path and appends the missing rest', async () => {
    await symlink(outside, join(project, 'out'));
    assert.equal(landingPath(join(project, 'out', 'a', 'b')), join(outside, 'a', 'b'));
    assert.equal(landingPath(join(project, 'missing', 'x')), join(project, 'missing', 'x'));
    // a dangling link lands where it points
    await symlink(join(outside, 'not-yet'), join(project, 'dangling'));
    assert.equal(landingPath(join(project, 'dangling', 'f')), join(outside, 'not-yet', 'f'));
  });

  it('allows plain paths and links that stay inside the project', async () => {
    await mkdir(join(project, '.claude'));
    await symlink('../shared', join(project, '.claude', 'skills'));
    assert.equal(refused(join(project, '.claude', 'skills')), false);
    assert.equal(refused(join(project, '.agents', 'skills')), false, 'not created yet');
    assert.equal(refused(join(tmp.path, 'elsewhere', 'config.toml')), false, 'outside the project to begin with (e.g. ~/.codex)');
  });

  it('refuses a link, a linked parent, a dangling link or a chain that leads out', async () => {
    await mkdir(join(project, '.claude'));
    await symlink(outside, join(project, '.claude', 'skills'));
    assert.ok(refused(join(project, '.claude', 'skills')));
    await symlink(outside, join(project, '.windsurf'));
    assert.ok(refused(join(project, '.windsurf', 'skills')));
    await symlink(join(outside, 'later'), join(project, 'dangling'));
    assert.ok(refused(join(project, 'dangling')));
    await symlink('.windsurf', join(project, 'chain'));
    assert.ok(refused(join(project, 'chain', 'skills')));
    await symlink('..', join(project, 'up'));
    assert.ok(refused(join(project, 'up', 'outside')));
  });

  it('user scope: follows a dotfiles link inside the home directory, refuses one that leads out of it', async () => {
    const home = project;
    await mkdir(join(home, 'dotfiles', 'claude'), { recursive: true });
    await mkdir(join(home, '.claude'));
    await symlink(join(home, 'dotfiles', 'claude', 'settings.json'), join(home, '.claude', 'settings.json'));
    assert.doesNotThrow(() => assertLandsInHome(join(home, '.claude', 'settings.json'), home, 'the config file'));
    await symlink(join(outside, 'config.toml'), join(home, 'config.toml'));
    assert.throws(() => assertLandsInHome(join(home, 'config.toml'), home, 'the Codex config file'), (e: unknown) => isSfError(e, 'SF_E_UNSAFE_PATH') && /out of your home directory/.test(e.message));
    // a config that lives outside the home directory to begin with (CODEX_HOME=/opt/...) is the user's choice
    assert.doesNotThrow(() => assertLandsInHome(join(outside, 'codex', 'config.toml'), home, 'x'));
  });
});
