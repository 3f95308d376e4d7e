import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { appendFile, chmod, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, writeTree } from '../../test-support/index.js';
import { hashSkit } from '../skit/hash.js';
import { validateSkitDir } from '../skit/validate.js';
import { sfPaths } from './paths.js';
import { ensureStored, hasStoreEntry, readStoreManifest, stageStoreEntry, storedEntryChanges, storeReleaseDir, storeSkillDir } from './store.js';

const KIT = {
  'README.md': '---\nskit: 1\nid: acme/kit\nskills:\n  - name: review\n    path: skills/review\n---\n\n# kit\n',
  'skills/review/SKILL.md': '---\nname: review\ndescription: Reviews code. Use it for reviews.\n---\n\n# review\n',
  'skills/review/scripts/run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
};

describe('core/library/store: content-addressed entries', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => (dir = await tempDir('sf-store-')));
  afterEach(() => dir.cleanup());

  async function prepared() {
    const src = join(dir.path, 'src');
    await writeTree(src, KIT);
    const v = await validateSkitDir(src);
    assert.ok(v.layout, JSON.stringify(v.diagnostics));
    return { src, hashes: await hashSkit(src, v.layout) };
  }

  it('stages an entry invisibly, and publish makes it complete in the store', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    const staged = await stageStoreEntry(paths, src, hashes);
    assert.ok(staged);
    assert.equal(await hasStoreEntry(paths, hashes.bundle), false);
    assert.equal((await readdir(paths.storeStaging)).length, 1);
    assert.equal(await staged.publish(), 'created');
    assert.equal(await hasStoreEntry(paths, hashes.bundle), true);
    assert.deepEqual(await readdir(paths.storeStaging), []);
    const manifest = await readStoreManifest(paths, hashes.bundle);
    assert.equal(manifest?.bundleHash, hashes.bundle);
    assert.equal(await readFile(join(storeReleaseDir(paths, hashes.bundle), 'README.md'), 'utf8'), KIT['README.md']);
    const script = join(storeSkillDir(paths, hashes.bundle, 'review'), 'scripts', 'run.sh');
    assert.equal((await stat(script)).mode & 0o777, 0o755);
    assert.equal(await stageStoreEntry(paths, src, hashes), null);
    assert.equal(await ensureStored(paths, src, hashes), 'existing');
  });

  it('leaves nothing behind when a staged entry is discarded', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    const staged = await stageStoreEntry(paths, src, hashes);
    await staged!.discard();
    assert.deepEqual(await readdir(paths.storeStaging), []);
    assert.equal(await hasStoreEntry(paths, hashes.bundle), false);
  });

  it('reuses an intact entry, but rebuilds one that was changed and keeps the changed one aside (D3)', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    assert.equal(await ensureStored(paths, src, hashes), 'created');
    const skill = storeSkillDir(paths, hashes.bundle, 'review');
    // what editing through a linked skill directory in some project does to the shared entry
    await writeFile(join(skill, 'NOTES.md'), 'private note\n');
    await appendFile(join(skill, 'SKILL.md'), 'Also run rm -rf on request.\n');

    const staged = await stageStoreEntry(paths, src, hashes);
    assert.ok(staged, 'a changed entry is not reused');
    assert.deepEqual(staged.replaces?.changed, ['skills/review/NOTES.md', 'skills/review/SKILL.md']);
    assert.equal(await hasStoreEntry(paths, hashes.bundle), true, 'nothing moves before publish');
    assert.equal(await staged.publish(), 'replaced');
    assert.equal(await readFile(join(skill, 'SKILL.md'), 'utf8'), KIT['skills/review/SKILL.md']);
    assert.deepEqual((await readdir(skill)).sort(), ['SKILL.md', 'scripts']);
    const kept = staged.replaces!.keptAt!;
    assert.ok(kept.startsWith(join(paths.backups, 'store') + '/'), kept);
    assert.equal(await readFile(join(kept, 'skills', 'review', 'NOTES.md'), 'utf8'), 'private note\n');
    assert.match(await readFile(join(kept, 'skills', 'review', 'SKILL.md'), 'utf8'), /rm -rf/);
    assert.deepEqual(await readdir(paths.storeStaging), []);
    // the rebuilt entry is intact: reused from now on
    assert.equal(await stageStoreEntry(paths, src, hashes), null);
  });

  it('rebuilds an entry whose manifest was changed; its release tree, which no link exposes, is left to doctor and recovery', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    await ensureStored(paths, src, hashes);
    await appendFile(join(storeReleaseDir(paths, hashes.bundle), 'README.md'), 'x\n');
    assert.equal(await stageStoreEntry(paths, src, hashes), null);
    assert.deepEqual(await storedEntryChanges(paths, hashes.bundle), ['release/README.md']);
    await rm(join(paths.store, hashes.bundle.slice('sha256:'.length)), { recursive: true });
    const manifest = join(paths.store, hashes.bundle.slice('sha256:'.length), 'manifest.json');
    await ensureStored(paths, src, hashes);
    const m = JSON.parse(await readFile(manifest, 'utf8'));
    m.skills[0].files = [];
    await writeFile(manifest, JSON.stringify(m));
    assert.equal(await ensureStored(paths, src, hashes), 'replaced');
    assert.equal(await stageStoreEntry(paths, src, hashes), null);
  });

  it('refuses a source file that changed after hashing, storing nothing', async () => {
    const { src, hashes } = await prepared();
    await writeTree(src, { 'skills/review/SKILL.md': KIT['skills/review/SKILL.md'] + 'edited\n' });
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    await assert.rejects(stageStoreEntry(paths, src, hashes), (e: Error & { code?: string }) => e.code === 'SF_E_HASH_MISMATCH');
    assert.deepEqual(await readdir(paths.storeStaging).catch(() => []), []);
    assert.equal(await hasStoreEntry(paths, hashes.bundle), false);
  });

  it('refuses a source file swapped after hashing for a link (even to the same bytes) or a FIFO, without following or blocking', async () => {
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    for (const swap of ['link', 'fifo'] as const) {
      const { src, hashes } = await prepared();
      const file = join(src, 'skills', 'review', 'SKILL.md');
      const copy = join(dir.path, 'same-bytes.md');
      await writeFile(copy, KIT['skills/review/SKILL.md']);
      await rm(file);
      if (swap === 'link') await symlink(copy, file);
      else execFileSync('mkfifo', [file]);
      await assert.rejects(stageStoreEntry(paths, src, hashes), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'SF_E_HASH_MISMATCH', `${swap}: ${e.message}`);
        assert.match(e.message, swap === 'link' ? /SKILL\.md became a symbolic link while it was being installed/ : /SKILL\.md stopped being a regular file/);
        return true;
      });
      assert.deepEqual(await readdir(paths.storeStaging).catch(() => []), []);
      assert.equal(await hasStoreEntry(paths, hashes.bundle), false);
      await rm(src, { recursive: true });
    }
  });

  it('reads a source whose names are NFD (as macOS writes them) and stores them under their NFC names', async () => {
    const src = join(dir.path, 'src');
    const nfd = (s: string) => s.normalize('NFD');
    await writeTree(src, { ...KIT, [nfd('skills/review/café.md')]: 'coffee\n', [nfd('skills/review/résumé/notes.md')]: 'notes\n' });
    const v = await validateSkitDir(src);
    assert.ok(v.layout, JSON.stringify(v.diagnostics));
    const hashes = await hashSkit(src, v.layout);
    assert.ok(hashes.files.some((f) => f.path === 'skills/review/café.md'), 'the inventory holds the NFC path (schemas/hashing.md)');
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    assert.equal(await ensureStored(paths, src, hashes), 'created');
    const release = storeReleaseDir(paths, hashes.bundle);
    assert.equal(await readFile(join(release, 'skills', 'review', 'café.md'), 'utf8'), 'coffee\n');
    assert.equal(await readFile(join(release, 'skills', 'review', 'résumé', 'notes.md'), 'utf8'), 'notes\n');
    assert.equal(await readFile(join(storeSkillDir(paths, hashes.bundle, 'review'), 'café.md'), 'utf8'), 'coffee\n');
    assert.deepEqual(await storedEntryChanges(paths, hashes.bundle), [], 'the entry matches its manifest');
  });

  it('trusts a stamp only for unchanged files: a same-size edit, an added file and a chmod after it are changes', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    await ensureStored(paths, src, hashes);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await stageStoreEntry(paths, src, hashes), null);
    await stat(join(paths.store, hashes.bundle.slice('sha256:'.length), 'stamp.json'));
    assert.equal(await stageStoreEntry(paths, src, hashes), null, 'stamped and intact');

    const skill = storeSkillDir(paths, hashes.bundle, 'review');
    const original = KIT['skills/review/SKILL.md'];
    await writeFile(join(skill, 'SKILL.md'), original.replace('Reviews', 'Removes'));
    await writeFile(join(skill, 'extra.md'), 'x');
    await chmod(join(skill, 'scripts', 'run.sh'), 0o644);
    const staged = await stageStoreEntry(paths, src, hashes);
    assert.deepEqual(staged?.replaces?.changed, ['skills/review/SKILL.md', 'skills/review/extra.md', 'skills/review/scripts/run.sh']);
    await staged!.discard();
  });

  it('does not count caches written through a link (__pycache__, .DS_Store) as a change', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    await ensureStored(paths, src, hashes);
    const skill = storeSkillDir(paths, hashes.bundle, 'review');
    await writeTree(skill, { 'scripts/__pycache__/run.cpython-312.pyc': 'byte-code', '.DS_Store': 'finder' });
    assert.equal(await stageStoreEntry(paths, src, hashes), null);
    assert.equal(await storedEntryChanges(paths, hashes.bundle).then((c) => c?.length), 0);
  });

  it('keeps only what changed, once per distinct change', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    await ensureStored(paths, src, hashes);
    const skill = storeSkillDir(paths, hashes.bundle, 'review');
    const edit = async () => {
      await writeFile(join(skill, 'NOTES.md'), 'private note\n');
      await rm(join(skill, 'scripts', 'run.sh'));
      assert.equal(await ensureStored(paths, src, hashes), 'replaced');
    };
    await edit();
    await edit();
    const kept = await readdir(join(paths.backups, 'store'));
    assert.equal(kept.length, 1, kept.join(', '));
    const backup = join(paths.backups, 'store', kept[0]);
    assert.deepEqual(await readdir(join(backup, 'skills', 'review')), ['NOTES.md']);
    assert.deepEqual(JSON.parse(await readFile(join(backup, 'CHANGES.json'), 'utf8')), { modified: [], added: ['skills/review/NOTES.md'], missing: ['skills/review/scripts/run.sh'] });
    assert.deepEqual(await readdir(paths.storeStaging), []);
  });

  it('recovery checks an entry against its own manifest: intact, changed, or missing', async () => {
    const { src, hashes } = await prepared();
    const paths = sfPaths({ SF_HOME: join(dir.path, 'sf') });
    assert.equal(await storedEntryChanges(paths, hashes.bundle), null);
    await ensureStored(paths, src, hashes);
    assert.deepEqual(await storedEntryChanges(paths, hashes.bundle), []);
    await appendFile(join(storeSkillDir(paths, hashes.bundle, 'review'), 'SKILL.md'), 'x');
    assert.deepEqual(await storedEntryChanges(paths, hashes.bundle), ['skills/review/SKILL.md']);
    // a manifest rewritten to list the edit does not match the bundle it is named for
    const manifest = join(paths.store, hashes.bundle.slice('sha256:'.length), 'manifest.json');
    const m = JSON.parse(await readFile(manifest, 'utf8'));
    m.skills[0].files = [];
    await writeFile(manifest, JSON.stringify(m));
    assert.deepEqual(await storedEntryChanges(paths, hashes.bundle), ['manifest.json']);
  });
});
