import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../../core/errors/index.js';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { createCodexAdapter } from './adapter.js';
import { sameSkillPath } from './skills-config.js';

/**
 * Codex canonicalizes a `[[skills.config]]` path and the skill's own path before comparing them
 * (checked with Codex 0.171.0): a user entry naming Forge's SKILL.md by its store path, or through
 * a symlinked directory, is an entry for that skill.
 */
describe('codex adapter: a user [[skills.config]] entry naming Forge\'s SKILL.md by another path', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());
  const adapter = createCodexAdapter();
  const file = () => join(f.home, '.codex/config.toml');
  const userEntry = async (path: string, enabled: boolean) =>
    writeFile(file(), `${readFileSync(file(), 'utf8')}\n[[skills.config]]\npath = ${JSON.stringify(path)}\nenabled = ${enabled}\n`);
  const codes = (ds: { code: string }[]) => ds.map((d) => d.code);

  it('one that turns a disabled skill on by its store path: doctor reports it exposed, disable refuses', async () => {
    const record = await adapter.project(f.request(['beta']), f.ctx('project'));
    await userEntry(join(f.sourceDirs.beta, 'SKILL.md'), true);
    const found = await adapter.diagnose(f.request(['beta']), record, f.ctx('project'));
    assert.ok(codes(found).includes('SF_DRIFT_DISABLED_EXPOSED'), JSON.stringify(found));
    await assert.rejects(adapter.setEnablement(f.request(['beta']), record, f.ctx('project')), (e: unknown) => {
      assert.ok(isSfError(e, 'SF_E_CONFLICT'), String(e));
      assert.match(e.message, /the same SKILL\.md/);
      return true;
    });
  });

  it('one that keeps an enabled skill off by its store path is reported as the user\'s override', async () => {
    const record = await adapter.project(f.request(['alpha']), f.ctx('project'));
    await userEntry(join(f.sourceDirs.beta, 'SKILL.md'), false);
    const found = await adapter.diagnose(f.request(['alpha']), record, f.ctx('project'));
    assert.deepEqual(codes(found).filter((c) => c !== 'SF_ADAPTER_CONFIG_DRIFT'), ['SF_ADAPTER_USER_OVERRIDE']);
    const res = await adapter.setEnablement(f.request(['alpha']), record, f.ctx('project'));
    assert.ok(res, 'enable goes ahead');
  });

  it('a project reached through a symlinked directory: the entry by the real path is the same skill', async () => {
    const link = join(f.root, 'src-link');
    await symlink(f.project, link);
    const ctx = { ...f.ctx('project'), projectRoot: link };
    const record = await adapter.project(f.request(['beta']), ctx);
    assert.match(readFileSync(file(), 'utf8'), new RegExp(`${link}/\\.agents/skills/beta/SKILL\\.md`), 'Forge writes the path it projected to');
    await userEntry(join(f.project, '.agents/skills/beta/SKILL.md'), true);
    assert.ok(codes(await adapter.diagnose(f.request(['beta']), record, ctx)).includes('SF_DRIFT_DISABLED_EXPOSED'));
    await assert.rejects(adapter.setEnablement(f.request(['beta']), record, ctx), (e: unknown) => isSfError(e, 'SF_E_CONFLICT'));
  });

  it('at the first install in a project reached through a symlinked directory, before the skill is projected', async () => {
    const link = join(f.root, 'src-link');
    await symlink(f.project, link);
    await mkdir(join(f.home, '.codex'), { recursive: true });
    await writeFile(file(), `[[skills.config]]\npath = ${JSON.stringify(join(f.project, '.agents/skills/beta/SKILL.md'))}\nenabled = true\n`);
    await assert.rejects(adapter.project(f.request(['beta']), { ...f.ctx('project'), projectRoot: link }), (e: unknown) => isSfError(e, 'SF_E_CONFLICT'));
  });

  it('compares real paths where they are known, and paths as written otherwise (pure)', () => {
    const resolved = new Map([['/home/me/proj/.agents/skills/b/SKILL.md', '/store/b/SKILL.md'], ['/store/b/SKILL.md', '/store/b/SKILL.md']]);
    assert.equal(sameSkillPath('/home/me/proj/.agents/skills/b/SKILL.md', '/store/b/SKILL.md', resolved), true);
    assert.equal(sameSkillPath('/store/b/SKILL.md', '/store/c/SKILL.md', resolved), false);
    assert.equal(sameSkillPath('/x/SKILL.md', '/x/SKILL.md'), true);
    assert.equal(sameSkillPath('/home/me/proj/.agents/skills/b/SKILL.md', '/store/b/SKILL.md'), false, 'nothing resolved: as written');
  });
});
