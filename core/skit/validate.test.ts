import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, writeTree } from '../../test-support/index.js';
import { codesOf, findDiagnostic, skillMd } from '../../test-support/skit-layout.js';
import { isSfError } from '../errors/index.js';
import { scaffoldSkit } from './scaffold.js';
import type { ValidationResult } from './validate-layout.js';
import { walkTreeSync } from './tree-sync.js';
import { validateSkitDir as validateAsync, validateSkitDirSync, type ValidateOptions } from './validate.js';

// Every case runs against both readers: the async one (servers) and the synchronous one (sf skit hash).
const implementations: [string, (root: string, options?: ValidateOptions) => Promise<ValidationResult>][] = [
  ['validateSkitDir', validateAsync],
  ['validateSkitDirSync', async (root, options) => validateSkitDirSync(root, options)],
];

for (const [name, validateSkitDir] of implementations) describe(`${name} (on disk)`, () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (dir = await tempDir('sf-validate-')));
  afterEach(() => dir.cleanup());

  const kit = async () => {
    const root = join(dir.path, 'kit');
    await writeTree(root, scaffoldSkit({ id: 'acme/kit' }));
    return root;
  };

  it('validates a scaffolded SKIT cleanly and lists its files with disk paths', async () => {
    const root = await kit();
    const r = await validateSkitDir(root);
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.ok, true);
    assert.deepEqual(r.layout?.files.map((f) => f.path), ['README.md', 'shared/references/style/guide.md', 'skills/review/SKILL.md', 'skills/summarize/SKILL.md']);
    assert.equal(r.layout?.files[0].abs, join(root, 'README.md'));
  });

  it('detects exec bits and #! lines on disk', async () => {
    const root = await kit();
    await writeTree(root, { 'shared/scripts/a.sh': { content: 'echo\n', mode: 0o755 }, 'shared/scripts/b': '#!/usr/bin/env node\n' });
    const r = await validateSkitDir(root);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === 'SKIT_EXECUTABLE_UNDECLARED').map((d) => d.file),
      ['shared/scripts/a.sh', 'shared/scripts/b'],
    );
  });

  it('refuses symlinks and FIFOs in the tree', async () => {
    const root = await kit();
    await symlink('/etc/passwd', join(root, 'shared', 'passwd'));
    const fifo = spawnSync('mkfifo', [join(root, 'shared', 'pipe')]);
    const r = await validateSkitDir(root);
    assert.equal(findDiagnostic(r, 'SKIT_TREE_SYMLINK').file, 'shared/passwd');
    if (fifo.status === 0) assert.equal(findDiagnostic(r, 'SKIT_TREE_SPECIAL_FILE').file, 'shared/pipe');
    assert.equal(r.ok, false);
  });

  it('refuses hostile file names that the local filesystem allows', async () => {
    const root = await kit();
    for (const name of ['back\\slash.md', 'bell\u0007.md', 'CON', 'rlo\u202etxt.md', 'dot.']) {
      await writeFile(join(root, 'shared', name), 'x');
    }
    await writeFile(join(root, 'shared', 'Guide.md'), 'x');
    await writeFile(join(root, 'shared', 'guide.md'), 'x');
    const r = await validateSkitDir(root);
    assert.equal(r.diagnostics.filter((d) => d.code === 'SKIT_PATH_UNSAFE').length, 5);
    assert.ok(codesOf(r).includes('SKIT_PATH_COLLISION'));
  });

  it('reads a single-skill directory and checks its name against the directory name', async () => {
    const root = join(dir.path, 'pdf-tools');
    await writeTree(root, { 'SKILL.md': skillMd('pdf-tools'), 'scripts/fill.py': { content: '#!/usr/bin/env python3\n', mode: 0o755 } });
    const r = await validateSkitDir(root);
    assert.equal(r.ok, true);
    assert.equal(r.layout?.provisional, true);
    assert.deepEqual(codesOf(r, 'warning'), ['SKIT_EXECUTABLE_UNDECLARED']);
    const other = join(dir.path, 'renamed');
    await writeTree(other, { 'SKILL.md': skillMd('pdf-tools') });
    assert.deepEqual(codesOf(await validateSkitDir(other, { provisionalId: 'provisional/x1' })), ['SKILL_NAME_DIR_MISMATCH']);
  });

  it('matches descriptor paths to the tree whatever Unicode normalization each uses (NFC README, NFD directory, and back)', async () => {
    const nfc = 't\u00e9cnico';
    const nfd = 'te\u0301cnico';
    const tree = (readmeName: string, dirName: string) => {
      const base = scaffoldSkit({ id: 'acme/kit' });
      const out: Record<string, string> = {};
      for (const [p, text] of Object.entries(base)) out[p.replace('skills/review/', `${dirName}/review/`)] = p === 'README.md' ? text.replace('path: skills/review', `path: ${readmeName}/review`) : text;
      return out;
    };
    for (const [readmeName, dirName] of [[nfc, nfd], [nfd, nfc]]) {
      const root = join(dir.path, `kit-${readmeName === nfc ? 'nfc' : 'nfd'}`);
      await writeTree(root, tree(readmeName, dirName));
      const r = await validateSkitDir(root);
      assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), [], `README ${readmeName === nfc ? 'NFC' : 'NFD'}`);
      assert.equal(r.layout?.skills.find((s) => s.name === 'review')?.path, `${dirName}/review`, 'the tree\'s own spelling, so files are found on disk');
    }
  });

  it('passes limits and a supplied descriptor through', async () => {
    const root = await kit();
    await writeFile(join(root, 'shared', 'big.bin'), Buffer.alloc(5000));
    assert.deepEqual(codesOf(await validateSkitDir(root, { limits: { maxFileBytes: 4096 } })), ['SKIT_QUOTA_FILE_BYTES']);
    // a README over the limit is not read, so the SKIT has no descriptor; the quota says why
    const tiny = await validateSkitDir(root, { limits: { maxFileBytes: 300 } });
    assert.ok(codesOf(tiny).includes('SKIT_DESCRIPTOR_MISSING'));
    assert.equal(tiny.diagnostics.find((d) => d.code === 'SKIT_QUOTA_FILE_BYTES' && d.file === 'README.md')?.severity, 'error');
    const r = await validateSkitDir(root, { descriptor: { skit: 1, id: 'acme/alt', skills: [{ name: 'summarize', path: 'skills/summarize' }] } });
    assert.equal(r.layout?.id, 'acme/alt');
    assert.equal(r.ok, true);
  });

  it('reports a README with a BOM', async () => {
    const root = await kit();
    await writeFile(join(root, 'README.md'), `\uFEFF${scaffoldSkit({ id: 'acme/kit' })['README.md']}`);
    assert.deepEqual(codesOf(await validateSkitDir(root)), ['SKIT_FRONTMATTER_BOM']);
  });

  it('throws SF_E_NOT_FOUND for a missing root and SF_E_USAGE for a file', async () => {
    await assert.rejects(validateSkitDir(join(dir.path, 'nope')), (e) => isSfError(e) && e.code === 'SF_E_NOT_FOUND');
    await mkdir(join(dir.path, 'd'));
    await writeFile(join(dir.path, 'd', 'f'), 'x');
    await chmod(join(dir.path, 'd', 'f'), 0o644);
    await assert.rejects(validateSkitDir(join(dir.path, 'd', 'f')), (e) => isSfError(e) && e.code === 'SF_E_USAGE');
  });

  it('validates the tree it is given instead of walking again (sf skit hash walks once for both)', async () => {
    const root = await kit();
    const tree = walkTreeSync(root);
    assert.deepEqual(await validateSkitDir(root, { tree }), await validateSkitDir(root));
    // a file written after the walk is not part of what was validated
    await writeTree(root, { 'shared/scripts/late.sh': { content: 'echo\n', mode: 0o755 } });
    assert.deepEqual(codesOf(await validateSkitDir(root, { tree })), []);
    assert.deepEqual(codesOf(await validateSkitDir(root)), ['SKIT_EXECUTABLE_UNDECLARED']);
  });
});
