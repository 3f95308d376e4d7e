import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir, writeTree } from '../../test-support/index.js';
import { skillMd } from '../../test-support/git.js';
import { resolveSource } from './index.js';

const SKIT_README = '---\nskit: 1\nid: acme/kit\nskills:\n  - name: review\n    path: skills/review\n---\n# kit\n';

describe('core/sources local resolver', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let workDir: string;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempDir('sf-src-local-'));
    root = await realpath(root);
    workDir = join(root, 'work');
  });
  afterEach(() => cleanup());

  it('resolves a SKIT directory in place, identified by its realpath', async () => {
    await writeTree(join(root, 'kit'), { 'README.md': SKIT_README, 'skills/review/SKILL.md': skillMd('review') });
    const r = await resolveSource('./kit', { cwd: root, workDir });
    assert.equal(r.kind, 'local-dir');
    assert.equal(r.dir, join(root, 'kit'));
    assert.equal(r.canonical, join(root, 'kit'));
    assert.equal(r.fingerprint, createHash('sha256').update(join(root, 'kit')).digest('hex'));
    assert.equal(r.provisionalId, `provisional/${r.fingerprint.slice(0, 16)}`);
    assert.equal(r.descriptor, undefined, 'a SKIT README is the descriptor; nothing is synthesized');
  });

  it('resolves a single-skill directory as a root skill, with no descriptor (its skill path would be "")', async () => {
    await writeTree(join(root, 'lint'), { 'SKILL.md': skillMd('lint'), 'scripts/run.sh': '#!/bin/sh\n' });
    const r = await resolveSource(join(root, 'lint'), { cwd: '/', workDir });
    assert.equal(r.kind, 'local-skill');
    assert.equal(r.descriptor, undefined);
    assert.equal(r.rootSkill, true);
  });

  it('gives a symlinked path and the real path the same identity, and records the path as given', async () => {
    await writeTree(join(root, 'lint'), { 'SKILL.md': skillMd('lint') });
    await symlink(join(root, 'lint'), join(root, 'alias'));
    const a = await resolveSource('lint', { cwd: root, workDir });
    const b = await resolveSource('./alias/', { cwd: root, workDir });
    assert.equal(a.fingerprint, b.fingerprint);
    assert.equal(b.canonical, join(root, 'alias'), 'update re-resolves the link, so it follows the link when it is moved');
  });

  it('reports a missing path as SF_E_NOT_FOUND and an empty directory as SF_E_NOT_FOUND with the locations', async () => {
    await assert.rejects(resolveSource('./nope', { cwd: root, workDir }), (e) => isSfError(e, 'SF_E_NOT_FOUND'));
    await mkdir(join(root, 'empty'));
    await assert.rejects(
      resolveSource('./empty', { cwd: root, workDir }),
      (e) => isSfError(e, 'SF_E_NOT_FOUND') && /skills\/<category>\/<name>/.test(e.hint ?? ''),
    );
  });

  it('refuses a plain file and --version on a path', async () => {
    await writeTree(root, { 'notes.txt': 'hi', 'lint/SKILL.md': skillMd('lint') });
    await assert.rejects(resolveSource('./notes.txt', { cwd: root, workDir }), (e) => isSfError(e, 'SF_E_SOURCE'));
    await assert.rejects(resolveSource('./lint', { cwd: root, workDir, version: '1.0.0' }), (e) => isSfError(e, 'SF_E_USAGE'));
  });
});
