import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { SfError, hasErrno, type Diagnostic } from '../errors/index.js';

/**
 * What kind of filesystem a data directory lives on, from statfs(2)'s magic number. LMDB needs
 * working byte-range locks and a coherent shared mmap; network filesystems provide neither
 * (LMDB's own documentation: "do not use LMDB databases on remote filesystems"), so a library or
 * hub database there can be corrupted by two machines, or by one client's stale cache.
 * FUSE is only suspect: it is how Docker Desktop shares host folders (grpcfuse, virtiofs) and how
 * sshfs works, but also how some local encrypted filesystems work.
 */
export type FilesystemClass = 'local' | 'network' | 'fuse' | 'kernel';

export interface FilesystemKind {
  class: FilesystemClass;
  /** the filesystem's usual name, or its magic number in hex when it is not one we name */
  name: string;
}

/** Network and cluster filesystems by their statfs f_type (linux/magic.h and the filesystems' own headers). */
const NETWORK: ReadonlyMap<number, string> = new Map([
  [0x6969, 'NFS'],
  [0x517b, 'SMB'],
  [0xff534d42, 'CIFS'],
  [0xfe534d42, 'SMB2'],
  [0x01021997, '9P'],
  [0x5346414f, 'AFS'],
  [0x6b414653, 'kAFS'],
  [0x73757245, 'Coda'],
  [0x564c, 'NCP'],
  [0x00c36400, 'Ceph'],
  [0x0bd00bd0, 'Lustre'],
  [0x47504653, 'GPFS'],
  [0x01161970, 'GFS2'],
  [0x7461636f, 'OCFS2'],
]);
const FUSE = 0x65735546;
/**
 * The kernel's own filesystems, which hold no user files: `mkdir -p` under /proc never succeeds
 * and Node's recursive mkdir retries it forever (ENOENT, parent EEXIST, again), so a data
 * directory there hung `sf` instead of failing.
 */
const KERNEL: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x6165676c, 'pstore'],
  [0xde5e81e4, 'efivarfs'],
]);

/** Classifies a statfs f_type (Node reports it as a possibly negative or 64-bit number). */
export function classifyFilesystem(type: number): FilesystemKind {
  const magic = Number(BigInt.asUintN(32, BigInt(Math.trunc(type))));
  const network = NETWORK.get(magic);
  if (network) return { class: 'network', name: network };
  if (magic === FUSE) return { class: 'fuse', name: 'FUSE' };
  const kernel = KERNEL.get(magic);
  if (kernel) return { class: 'kernel', name: kernel };
  return { class: 'local', name: `0x${magic.toString(16)}` };
}

export type Statfs = (path: string) => { type: number };

/**
 * The filesystem `path` is on, or would be created on: the nearest existing ancestor answers for
 * a directory that does not exist yet. Undefined where statfs is not available (not Linux/macOS).
 */
export function filesystemOf(path: string, statfs: Statfs = statfsSync): FilesystemKind | undefined {
  for (let p = path; ; p = dirname(p)) {
    try {
      return classifyFilesystem(statfs(p).type);
    } catch (e) {
      if (!hasErrno(e, 'ENOENT') && !hasErrno(e, 'ENOTDIR')) return undefined;
      if (dirname(p) === p) return undefined;
    }
  }
}

/** How to put $SF_HOME elsewhere: the default `relocate` of the refusals below. */
const MOVE_SF_HOME = 'set SF_HOME to a directory on a local disk (or unset it to use ~/.sf)';

/** How to serve the hub from elsewhere: `relocate` for its data directory. */
export const MOVE_HUB_DATA = 'serve the hub from a directory on a local disk (`sf hub serve --data <dir>`)';

const kernelFilesystemError = (dir: string, what: string, kind: FilesystemKind, relocate: string) =>
  new SfError('SF_E_UNSAFE_PATH', `${what} at ${dir} is on the kernel's ${kind.name} filesystem, which cannot hold its files`, {
    location: { file: dir },
    hint: relocate,
    data: { filesystem: kind.name },
  });

const checkedHomes = new Set<string>();

/** Refuses a state directory under /proc, /sys, ... (checked once per directory and process). */
export function assertNotKernelFilesystem(dir: string, what: string): void {
  if (checkedHomes.has(dir)) return;
  const kind = filesystemOf(dir);
  if (kind?.class === 'kernel') throw kernelFilesystemError(dir, what, kind, MOVE_SF_HOME);
  checkedHomes.add(dir);
}

/** The variable that lets a user keep a data directory on a network filesystem anyway. */
export const ALLOW_NETWORK_FS = 'SF_ALLOW_NETWORK_FS';

/**
 * Refuses to open an LMDB database (`what`, at `dir`) on one of the kernel's filesystems (/proc,
 * /sys, ...), and on a network filesystem unless SF_ALLOW_NETWORK_FS=1: corruption found later
 * costs far more than a clear refusal now.
 * FUSE and unknown filesystems pass (doctor reports FUSE). `relocate` says how to put it elsewhere.
 */
export function assertLocalDataDir(dir: string, what: string, env: NodeJS.ProcessEnv = process.env, statfs?: Statfs, relocate = MOVE_SF_HOME): void {
  const kind = filesystemOf(dir, statfs);
  if (kind?.class === 'kernel') throw kernelFilesystemError(dir, what, kind, relocate);
  if (env[ALLOW_NETWORK_FS] === '1') return;
  if (kind?.class !== 'network') return;
  throw new SfError('SF_E_NETWORK_FILESYSTEM', `${what} at ${dir} is on a network filesystem (${kind.name}), where its database can be corrupted`, {
    location: { file: dir },
    hint: `${relocate}, or set ${ALLOW_NETWORK_FS}=1 if only this one machine ever uses it`,
    data: { filesystem: kind.name },
  });
}

/** Doctor's view of the filesystem under `dir` ($SF_HOME): nothing when it is local or unknown. */
export function dataDirFinding(dir: string, kind: FilesystemKind | undefined): Diagnostic | undefined {
  // a kernel filesystem never gets here: sfPaths refuses it for every command
  if (!kind || kind.class === 'local' || kind.class === 'kernel') return undefined;
  return kind.class === 'network'
    ? { code: 'SF_HOME_NETWORK_FILESYSTEM', severity: 'error', file: dir, message: `${dir} is on a network filesystem (${kind.name}); the library's database can be corrupted there`, hint: 'set SF_HOME to a directory on a local disk and install again' }
    : { code: 'SF_HOME_FUSE_FILESYSTEM', severity: 'warning', file: dir, message: `${dir} is on a FUSE filesystem (a Docker Desktop bind mount, sshfs, ...); its locks and memory maps may not work for the library's database`, hint: 'prefer SF_HOME on a local disk' };
}
