import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { assertLocalDataDir, classifyFilesystem, dataDirFinding, filesystemOf, type Statfs } from './filesystem-kind.js';

const NFS = 0x6969;
const FUSE = 0x65735546;
const enoent = () => Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });

/** A statfs for a made-up mount table: the longest mount prefix of a path answers; `missing` paths do not exist. */
const fakeStatfs = (mounts: Record<string, number>, missing: string[] = []): Statfs & { asked: string[] } => {
  const asked: string[] = [];
  const statfs = (path: string) => {
    asked.push(path);
    if (missing.some((m) => path === m || path.startsWith(`${m}/`))) throw enoent();
    const mount = Object.keys(mounts)
      .filter((m) => path === m || path.startsWith(m === '/' ? '/' : `${m}/`))
      .sort((a, b) => b.length - a.length)[0];
    return { type: mounts[mount] };
  };
  return Object.assign(statfs, { asked });
};

describe('filesystem kind of data directories (core/fs/filesystem-kind.ts)', () => {
  it('names network, cluster and FUSE filesystems by their statfs magic, however Node signs it', () => {
    assert.deepEqual(classifyFilesystem(NFS), { class: 'network', name: 'NFS' });
    assert.deepEqual(classifyFilesystem(0xff534d42), { class: 'network', name: 'CIFS' });
    // the same magic read as a signed 32-bit f_type
    assert.deepEqual(classifyFilesystem(0xff534d42 - 2 ** 32), { class: 'network', name: 'CIFS' });
    assert.deepEqual(classifyFilesystem(0x01021997), { class: 'network', name: '9P' });
    assert.deepEqual(classifyFilesystem(FUSE), { class: 'fuse', name: 'FUSE' });
    assert.deepEqual(classifyFilesystem(0xef53), { class: 'local', name: '0xef53' });
    assert.deepEqual(classifyFilesystem(0x01021994), { class: 'local', name: '0x1021994' });
  });

  it('asks the nearest existing ancestor of a directory that does not exist yet', () => {
    const statfs = fakeStatfs({ '/': 0xef53, '/mnt/share': NFS }, ['/mnt/share/home/.sf']);
    assert.deepEqual(filesystemOf('/mnt/share/home/.sf/store', statfs), { class: 'network', name: 'NFS' });
    assert.deepEqual(statfs.asked, ['/mnt/share/home/.sf/store', '/mnt/share/home/.sf', '/mnt/share/home']);
  });

  it('reports this machine’s temporary directory as local (no false alarm on the real statfs)', async () => {
    const tmp = await tempDir('sf-fskind-');
    try {
      assert.equal(filesystemOf(join(tmp.path, 'not', 'yet'))?.class, 'local');
    } finally {
      await tmp.cleanup();
    }
  });

  it('refuses a database directory on a network filesystem, with the way out in the hint', () => {
    const statfs = fakeStatfs({ '/': 0xef53, '/mnt/share': NFS });
    try {
      assertLocalDataDir('/mnt/share/.sf', 'the library ($SF_HOME)', {}, statfs);
      assert.fail('expected a refusal');
    } catch (e) {
      assert.ok(isSfError(e, 'SF_E_NETWORK_FILESYSTEM'), String(e));
      assert.match(e.message, /the library \(\$SF_HOME\) at \/mnt\/share\/\.sf is on a network filesystem \(NFS\)/);
      assert.match(e.hint ?? '', /SF_ALLOW_NETWORK_FS=1/);
    }
    // the user's explicit choice, a FUSE mount and a local disk pass
    assertLocalDataDir('/mnt/share/.sf', 'x', { SF_ALLOW_NETWORK_FS: '1' }, statfs);
    assertLocalDataDir('/mnt/fuse/.sf', 'x', {}, fakeStatfs({ '/': 0xef53, '/mnt/fuse': FUSE }));
    assertLocalDataDir('/home/u/.sf', 'x', {}, statfs);
  });

  it('gives doctor an error for a network home, a warning for FUSE and nothing for a local disk', () => {
    assert.equal(dataDirFinding('/h', { class: 'network', name: 'SMB2' })?.code, 'SF_HOME_NETWORK_FILESYSTEM');
    assert.equal(dataDirFinding('/h', { class: 'network', name: 'SMB2' })?.severity, 'error');
    assert.equal(dataDirFinding('/h', { class: 'fuse', name: 'FUSE' })?.severity, 'warning');
    assert.equal(dataDirFinding('/h', { class: 'local', name: '0xef53' }), undefined);
    assert.equal(dataDirFinding('/h', undefined), undefined);
  });

  it('refuses a data directory under /proc or /sys (the real filesystems), even with SF_ALLOW_NETWORK_FS=1: Node\'s mkdir -p loops forever there', () => {
    assert.deepEqual(filesystemOf('/proc/sf-home/deeper'), { class: 'kernel', name: 'proc' });
    for (const dir of ['/proc/sf-home', '/sys/kernel/sf-home']) {
      assert.throws(
        () => assertLocalDataDir(dir, 'the library ($SF_HOME)', { SF_ALLOW_NETWORK_FS: '1' }),
        (e: unknown) => isSfError(e, 'SF_E_UNSAFE_PATH') && /kernel's (proc|sysfs) filesystem/.test(e.message) && /SF_HOME/.test(e.hint ?? ''),
      );
    }
  });
});
