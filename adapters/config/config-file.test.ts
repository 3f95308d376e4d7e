import assert from 'node:assert/strict';
import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { chmod, readdir, readlink, symlink, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSfError } from '../../core/errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { editConfigFile } from './config-file.js';
import { writeFileAtomic } from './atomic-write.js';

describe('config file editing', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (tmp = await tempDir('sf-cfg-')));
  afterEach(() => tmp.cleanup());

  it('keeps the file mode, leaves no temp file behind, and replaces the target of a symlinked config', async () => {
    const real = join(tmp.path, 'dotfiles', 'settings.json');
    await mkdir(join(tmp.path, 'dotfiles'));
    await writeFile(real, '{}');
    await chmod(real, 0o600);
    const link = join(tmp.path, 'settings.json');
    await symlink(real, link);
    await writeFileAtomic(link, '{"a":1}');
    assert.ok(lstatSync(link).isSymbolicLink(), 'the dotfile-manager link survives');
    assert.equal(await readlink(link), real);
    assert.equal(readFileSync(real, 'utf8'), '{"a":1}');
    assert.equal(statSync(real).mode & 0o777, 0o600);
    assert.deepEqual((await readdir(join(tmp.path, 'dotfiles'))).sort(), ['settings.json']);
  });

  it('edits of one file by concurrent commands take turns: none is lost, and no lock is left behind', async () => {
    const file = join(tmp.path, 'settings.json');
    await writeFile(file, '{}\n');
    const add = (key: string) => editConfigFile(file, join(tmp.path, 'backups'), (snap) => JSON.stringify({ ...JSON.parse(snap.text), [key]: true }, null, 2) + '\n');
    // twenty edits in flight at once, each a read, a backup (async) and a replace of the same file
    await Promise.all(Array.from({ length: 20 }, (_, i) => add(`k${i}`)));
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, 'utf8'))).sort(), Array.from({ length: 20 }, (_, i) => `k${i}`).sort());
    assert.deepEqual((await readdir(tmp.path)).filter((n) => n.includes('sf-lock')), []);
  });

  it('refuses a file that is not UTF-8 (decoding it would replace the bytes), naming the place, and writes nothing', async () => {
    const file = join(tmp.path, 'settings.json');
    const bytes = Buffer.concat([Buffer.from('{\n  "name": "caf'), Buffer.from([0xe9]), Buffer.from('"\n}\n')]);
    writeFileSync(file, bytes);
    await assert.rejects(
      editConfigFile(file, join(tmp.path, 'backups'), () => '{}'),
      (e: unknown) => isSfError(e, 'SF_E_CONFIG') && /settings\.json:2:15: not UTF-8 text \(byte 0xe9\)/.test(e.message) && e.location?.line === 2,
    );
    assert.deepEqual(readFileSync(file), bytes);
    // valid multi-byte text is fine
    writeFileSync(file, '{"name": "café ✓ 🚀"}');
    assert.equal((await editConfigFile(file, join(tmp.path, 'backups'), () => '{}')).changed, true);
  });

  it('refuses a write-protected file (mode 0444) and a directory where the file should be, with SF_E_CONFIG and nothing written', async () => {
    const file = join(tmp.path, 'settings.json');
    writeFileSync(file, '{}');
    await chmod(file, 0o444);
    await assert.rejects(editConfigFile(file, join(tmp.path, 'backups'), () => '{"a":1}'), (e: unknown) => isSfError(e, 'SF_E_CONFIG') && /is read-only \(mode 444\)/.test(e.message) && /chmod u\+w/.test(e.hint ?? ''));
    assert.equal(readFileSync(file, 'utf8'), '{}');
    // the preflight (dry run) refuses it too, so no other agent is edited first
    await assert.rejects(editConfigFile(file, join(tmp.path, 'backups'), () => '{"a":1}', true), (e: unknown) => isSfError(e, 'SF_E_CONFIG'));
    const dir = join(tmp.path, 'config.toml');
    await mkdir(dir);
    await assert.rejects(editConfigFile(dir, join(tmp.path, 'backups'), () => 'x = 1'), (e: unknown) => isSfError(e, 'SF_E_CONFIG') && e.message === `${dir} is a directory, not a config file`);
  });

  it('lets a write-protected file be when no edit is needed (a SKIT whose children are all enabled)', async () => {
    const file = join(tmp.path, 'config.toml');
    writeFileSync(file, 'model = "o3"\n');
    await chmod(file, 0o444);
    for (const dryRun of [true, false]) {
      assert.equal((await editConfigFile(file, join(tmp.path, 'backups'), (s) => s.text, dryRun)).changed, false);
      assert.equal((await editConfigFile(file, join(tmp.path, 'backups'), () => undefined, dryRun)).changed, false);
    }
    assert.equal(readFileSync(file, 'utf8'), 'model = "o3"\n');
    assert.equal(statSync(file).mode & 0o777, 0o444);
  });

  it('backs up the previous bytes (mode 0600, timestamped name) before replacing', async () => {
    const file = join(tmp.path, 'config.toml');
    await writeFile(file, 'model = "a"\n');
    const out = await editConfigFile(file, join(tmp.path, 'backups'), (s) => s.text.replace('"a"', '"b"'));
    assert.equal(out.changed, true);
    assert.match(out.backup!, /backups\/\d{8}T\d{9}Z-config\.toml-[0-9a-f]{8}\.bak$/);
    assert.equal(readFileSync(out.backup!, 'utf8'), 'model = "a"\n');
    assert.equal(statSync(out.backup!).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8'), 'model = "b"\n');
  });

  it('redoes the edit on the new content when the host rewrites the file between read and write', async () => {
    const file = join(tmp.path, 'settings.json');
    await writeFile(file, 'host v1\n');
    let calls = 0;
    const out = await editConfigFile(file, join(tmp.path, 'backups'), (s) => {
      calls++;
      if (calls === 1) writeFileSync(file, 'host v2\n');
      return s.text + 'forge\n';
    });
    assert.equal(calls, 2);
    assert.equal(out.changed, true);
    assert.equal(readFileSync(file, 'utf8'), 'host v2\nforge\n', 'the host\'s change is kept, not overwritten');
  });

  it('a transform that throws leaves the file and the backup dir untouched', async () => {
    const file = join(tmp.path, 'settings.json');
    await writeFile(file, 'broken');
    await assert.rejects(editConfigFile(file, join(tmp.path, 'backups'), () => { throw new Error('cannot parse'); }), /cannot parse/);
    assert.equal(readFileSync(file, 'utf8'), 'broken');
    assert.deepEqual(await readdir(tmp.path), ['settings.json']);
  });

  it('keeps a BOM and CRLF line endings', async () => {
    const file = join(tmp.path, 'a.json');
    await writeFile(file, '\uFEFF{\r\n}\r\n');
    await editConfigFile(file, join(tmp.path, 'b'), (s) => {
      assert.equal(s.shape.eol, '\r\n');
      assert.equal(s.text.startsWith('{'), true, 'the transform sees text without the BOM');
      return `{${s.shape.eol}  "x": 1${s.shape.eol}}${s.shape.eol}`;
    });
    assert.equal(readFileSync(file, 'utf8'), '\uFEFF{\r\n  "x": 1\r\n}\r\n');
  });
});
