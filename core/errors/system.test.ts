import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { diskFullAt, fromSystemError, leftStderrLineOpen, systemErrorAbout } from './system.js';
import { SfError } from './sf-error.js';

/** The error a real system call throws. */
function thrownBy(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('fromSystemError', () => {
  it('turns a full disk into SF_E_DISK_FULL, with how to recover (and the path, when the failed call had one)', () => {
    const write = thrownBy(() => writeFileSync('/dev/full', 'x'));
    const e = fromSystemError(write);
    assert.ok(e instanceof SfError);
    assert.equal(e.code, 'SF_E_DISK_FULL');
    assert.match(e.message, /^no space left on the device \(ENOSPC: no space left on device, write\)$/);
    assert.match(e.hint ?? '', /free disk space.*sf skit doctor --fix/);
    const withPath = fromSystemError(Object.assign(write, { path: '/home/u/.sf/store/x' }));
    assert.match(withPath!.message, /for \/home\/u\/\.sf\/store\/x/);
    assert.equal(withPath!.location?.file, '/home/u/.sf/store/x');
  });

  it('recognizes native code that words it without an errno (lmdb)', () => {
    const lmdb = new Error('No space left on device: Attempting to write page at position 20480, size 12288, blocks 3');
    assert.equal(fromSystemError(lmdb)?.code, 'SF_E_DISK_FULL');
    assert.equal(fromSystemError(new Error('MDB_MAP_FULL: Environment mapsize limit reached'))?.code, 'SF_E_DISK_FULL');
    // lmdb printed "Write error: ..." without a newline for a failed page write, and only then
    assert.equal(leftStderrLineOpen(lmdb), true);
    assert.equal(leftStderrLineOpen(new Error('MDB_MAP_FULL: Environment mapsize limit reached')), false);
    assert.equal(leftStderrLineOpen(thrownBy(() => writeFileSync('/dev/full', 'x'))), false);
  });

  it('turns any other failed system call into SF_E_IO with the call, the path and a hint', () => {
    const e = fromSystemError(thrownBy(() => readFileSync('/etc/passwd/not-a-dir')));
    assert.equal(e?.code, 'SF_E_IO');
    assert.equal(e!.message, "open failed: ENOTDIR: not a directory, open '/etc/passwd/not-a-dir'");
    assert.equal(e!.location?.file, '/etc/passwd/not-a-dir');
    assert.deepEqual(e!.data, { errno: 'ENOTDIR', syscall: 'open' });
    assert.ok(e!.hint);
  });

  it('leaves SfErrors and ordinary bugs alone', () => {
    assert.equal(fromSystemError(new SfError('SF_E_USAGE', 'x')), undefined);
    assert.equal(fromSystemError(new TypeError('cannot read properties of undefined')), undefined);
    assert.equal(fromSystemError('a string'), undefined);
  });
});

describe('systemErrorAbout', () => {
  it('names what the user must act on instead of the private file the call failed on', () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open '/p/.claude/.settings.json.sf-lock.12.ab12cd34'"), { code: 'EACCES', syscall: 'open', path: '/p/.claude/.settings.json.sf-lock.12.ab12cd34' });
    const e = systemErrorAbout(denied, '/p/.claude', 'cannot edit /p/.claude/settings.json: no lock file can be created in /p/.claude');
    assert.equal(e?.code, 'SF_E_IO');
    assert.equal(e!.message, 'cannot edit /p/.claude/settings.json: no lock file can be created in /p/.claude (EACCES: permission denied)');
    assert.equal(e!.location?.file, '/p/.claude');
    assert.match(e!.hint ?? '', /^check the permissions of \/p\/\.claude/);
    const full = systemErrorAbout(thrownBy(() => writeFileSync('/dev/full', 'x')), '/p/.claude', 'cannot edit /p/.claude/settings.json');
    assert.equal(full?.code, 'SF_E_DISK_FULL');
    assert.equal(full!.message, 'no space left on the device for /p/.claude: cannot edit /p/.claude/settings.json (ENOSPC: no space left on device)');
    assert.equal(systemErrorAbout(new TypeError('x'), '/p', 'y'), undefined);
  });
});

describe('diskFullAt', () => {
  it('names the place a full disk was met under, keeps lmdb\'s open stderr line known, and leaves other errors alone', () => {
    const e = diskFullAt(thrownBy(() => writeFileSync('/dev/full', 'x')), '$SF_HOME (/h/.sf)', '/h/.sf');
    assert.equal(e?.code, 'SF_E_DISK_FULL');
    assert.equal(e!.message, 'no space left on the device holding $SF_HOME (/h/.sf) (ENOSPC: no space left on device)');
    assert.equal(e!.location?.file, '/h/.sf');
    const lmdb = diskFullAt(new Error('No space left on device: Attempting to write page at position 20480, size 12288, blocks 3'), 'the project /p', '/p');
    assert.equal(lmdb!.message, 'no space left on the device holding the project /p (No space left on device)');
    assert.equal(leftStderrLineOpen(lmdb), true);
    assert.equal(diskFullAt(thrownBy(() => readFileSync('/etc/passwd/not-a-dir')), 'x', '/x'), undefined);
    assert.equal(diskFullAt(new SfError('SF_E_DISK_FULL', 'already said'), 'x', '/x'), undefined);
  });
});
