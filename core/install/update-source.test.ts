import { strict as assert } from 'node:assert';
import { mkdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { installSandbox, type InstallSandbox } from '../../test-support/skit-install.js';
import { writeTree } from '../../test-support/index.js';

/**
 * `sf skit update` of a local source that can no longer be resolved says which of two things
 * happened: the recorded path is gone (moved or deleted), or it is still there but no longer
 * holds a SKIT. Real CLI, real files.
 */

const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill. Use it in tests.\n---\n\n# ${name}\n`;

describe('sf skit update of a local source that no longer resolves', function () {
  this.timeout(60_000);
  let sb: InstallSandbox;

  beforeEach(async () => {
    sb = await installSandbox('sf-update-source-');
  });
  afterEach(() => sb.cleanup());

  async function install(source: string): Promise<void> {
    const r = await sb.sf(['add', 'skit', source, '--agent', 'claude-code', '--scope', 'user', '--yes']);
    assert.equal(r.code, 0, r.stderr);
  }

  it('says the directory still exists but holds no SKIT when its SKILL.md was renamed, not that it is gone', async () => {
    const dir = join(sb.root, 'solo');
    await writeTree(dir, { 'SKILL.md': skillMd('solo') });
    await install(dir);
    await rename(join(dir, 'SKILL.md'), join(dir, 'NOTES.md'));
    const r = await sb.sf(['skit', 'update', '--all', '--scope', 'user']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /error\[SF_E_NOT_FOUND\]: the recorded source of provisional\/[0-9a-f]+, \S*solo, is still there but holds no SKIT or Agent Skill any more/);
    assert.match(r.stderr, /hint: a source must hold a README\.md with SKIT frontmatter, a SKILL\.md at its root.*sf skit remove provisional\//);
    assert.doesNotMatch(r.stderr, /is gone/);
  });

  it('says the same when the recorded path is a link that now points at a directory without a SKIT', async () => {
    const kits = join(sb.root, 'kits');
    await writeTree(join(kits, 'v1'), { 'skills/theta/SKILL.md': skillMd('theta') });
    await mkdir(join(kits, 'empty'));
    const link = join(kits, 'current');
    await symlink('v1', link);
    await install(link);
    await rm(link);
    await symlink('empty', link);
    const r = await sb.sf(['skit', 'update', '--all', '--scope', 'user']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /is still there but holds no SKIT or Agent Skill any more/);
    assert.doesNotMatch(r.stderr, /is gone/);
  });

  it('still says "is gone" when the recorded path no longer exists', async () => {
    const dir = join(sb.root, 'zeta');
    await writeTree(dir, { 'SKILL.md': skillMd('zeta') });
    await install(dir);
    await rm(dir, { recursive: true });
    const r = await sb.sf(['skit', 'update', '--all', '--scope', 'user']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /the recorded source of provisional\/[0-9a-f]+, \S*zeta, is gone\n  hint: if it moved: sf skit update provisional\/[0-9a-f]+ --source <new path> \(keeps its enable\/disable settings\)/);
  });
});
