import { SfError } from './sf-error.js';

/** How lmdb and other native code word a full disk (they throw plain Errors without an errno code). */
const DISK_FULL_TEXT = /No space left on device|Disk quota exceeded|MDB_MAP_FULL/i;

/** lmdb's message for a failed page write: its C code has just printed `Write error: ...` to stderr without a newline. */
const LMDB_PAGE_WRITE = /Attempting to write page/;

/** True when native code reported `e` on stderr itself and left the line open (the next output needs its own line). */
export function leftStderrLineOpen(e: unknown): boolean {
  // also when it was reported as something the user can act on (diskFullAt keeps it as the cause)
  for (let c = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) if (LMDB_PAGE_WRITE.test(c.message)) return true;
  return false;
}

const IO_HINTS: Record<string, string> = {
  EACCES: 'check the permissions of that path (and of the directories above it), then run the command again',
  EPERM: 'check the permissions of that path (and of the directories above it), then run the command again',
  EROFS: 'that filesystem is mounted read-only; point $SF_HOME or the project elsewhere, or remount it writable',
  EMFILE: 'too many files are open; close other programs or raise the limit (ulimit -n), then run the command again',
  ENFILE: 'too many files are open system-wide; close other programs, then run the command again',
  EIO: 'the device reported an I/O error; check the disk, then run the command again',
  EADDRINUSE: 'another process already listens on that address and port: stop it, or choose another --port',
  EADDRNOTAVAIL: 'that address is not one of this machine\'s: choose another --host (127.0.0.1 for this machine only)',
  ENOTFOUND: 'that host name does not resolve: check --host, or give an IP address such as 127.0.0.1',
  EISDIR: 'that path is a directory: give a file path instead',
  ENOTDIR: 'a part of that path is a file, not a directory: give a directory path',
  EEXIST: 'something already exists at that path: remove it or choose another path',
  ENAMETOOLONG: 'that name or path is too long for the filesystem: use a shorter one',
};

/** System calls that change nothing on disk: a failure there leaves nothing for `sf skit doctor --fix` to finish. */
const CHANGES_NOTHING = new Set(['listen', 'bind', 'connect', 'getaddrinfo', 'uv_cwd', 'scandir', 'stat', 'lstat', 'access', 'open', 'read', 'readlink', 'realpath']);

const RECOVER = '`sf skit doctor --fix` finishes or undoes a change it interrupted';

/**
 * An operating-system failure (a Node error with an errno `code` and a `syscall`, or native code
 * reporting a full disk) as the SfError a person can act on: SF_E_DISK_FULL or SF_E_IO, naming
 * the path and what to do. Undefined for anything else, which stays an internal error.
 */
export function fromSystemError(e: unknown): SfError | undefined {
  if (!(e instanceof Error) || e instanceof SfError) return undefined;
  const { code, path, syscall } = e as NodeJS.ErrnoException;
  const where = typeof path === 'string' ? path : undefined;
  const location = where ? { file: where } : undefined;
  if (code === 'ENOSPC' || code === 'EDQUOT' || DISK_FULL_TEXT.test(e.message)) {
    return new SfError('SF_E_DISK_FULL', `no space left on the device${where ? ` for ${where}` : ''} (${e.message})`, {
      location,
      hint: `free disk space (or raise the quota) on that filesystem, then run the command again; ${RECOVER}`,
      data: { retryAfterSeconds: 60 },
      cause: e,
    });
  }
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) && typeof syscall === 'string') {
    // Node's own message usually names the path already
    const named = where !== undefined && !e.message.includes(where) ? ` ${where}` : '';
    // the current directory was deleted under the command: nothing names a path to look at
    const cwdGone = syscall === 'uv_cwd';
    const hint = cwdGone ? 'the current directory no longer exists: cd into an existing directory and run the command again' : IO_HINTS[code] ?? (where ? 'check that path, then run the command again' : 'fix the cause the message names, then run the command again');
    return new SfError('SF_E_IO', cwdGone ? 'the current directory no longer exists' : `${syscall}${named} failed: ${e.message}`, {
      location,
      hint: CHANGES_NOTHING.has(syscall) ? hint : `${hint}; ${RECOVER}`,
      data: { errno: code, syscall },
      cause: e,
    });
  }
  return undefined;
}

/** Node's reason without the path it names: "EACCES: permission denied" of "EACCES: permission denied, open '/x/.f.sf-lock.1.ab'". */
function reasonOf(e: Error): string {
  const { code } = e as NodeJS.ErrnoException;
  const head = /^(E[A-Z0-9]+: [^,]+)/.exec(e.message)?.[1];
  if (head) return head;
  // native code words it without an errno (lmdb: "No space left on device: Attempting to write page ...")
  if (typeof code !== 'string') return e.message.split(':')[0];
  return `${code}: ${e.message}`;
}

/**
 * A failed system call on a file Forge made for its own purposes (a lock, a temp copy), reported
 * about what the user knows and must act on instead: `subject` (a config file, $SF_HOME, a
 * project) and `doing` ("cannot edit /p/.claude/settings.local.json: no lock file can be created
 * in /p/.claude"). A full disk stays SF_E_DISK_FULL, naming `subject`. Undefined for anything
 * that is not a failed system call.
 */
export function systemErrorAbout(e: unknown, subject: string, doing: string): SfError | undefined {
  const base = fromSystemError(e);
  if (!base) return undefined;
  const reason = reasonOf(e as Error);
  const location = { file: subject };
  if (base.code === 'SF_E_DISK_FULL') {
    return new SfError('SF_E_DISK_FULL', `no space left on the device for ${subject}: ${doing} (${reason})`, { location, hint: base.hint, data: base.data, cause: e });
  }
  return new SfError(base.code, `${doing} (${reason})`, { location, hint: base.hint?.replace(/^check the permissions of that path/, `check the permissions of ${subject}`), data: base.data, cause: e });
}

/**
 * A full disk met while writing under `place` ("$SF_HOME (/home/u/.sf)", "the project /p"), said
 * with that place: an fd-based write's error carries no path, lmdb's none either, and $SF_HOME and
 * a project can be on different filesystems. Undefined for anything that is not a full disk (and
 * for an SfError, which already says what it means).
 */
export function diskFullAt(e: unknown, place: string, path: string): SfError | undefined {
  const base = fromSystemError(e);
  if (base?.code !== 'SF_E_DISK_FULL') return undefined;
  return new SfError('SF_E_DISK_FULL', `no space left on the device holding ${place} (${reasonOf(e as Error)})`, {
    location: { file: path },
    hint: base.hint,
    data: { ...base.data, place: path },
    cause: e,
  });
}
