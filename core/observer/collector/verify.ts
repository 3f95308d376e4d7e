import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SfError, hasErrno } from '../../errors/index.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { unpackArchive } from '../../archive/index.js';
import type { CollectorArchive, CollectorManifest } from './pinned.js';

/**
 * Checksum verification of otelcol-contrib: a release archive must match the pinned manifest;
 * the binary extracted from a verified archive is recorded with its own sha256 in
 * $SF_HOME/collector/install.json, and every later use re-hashes the binary against that record.
 * A binary Forge did not install from a verified archive is never run.
 */

export interface CollectorInstallRecord {
  version: string;
  platform: string;
  archiveSha256: string;
  binary: string;
  binarySha256: string;
  installedAt: string;
}

/** `<os>_<arch>` as in otelcol-contrib asset names. */
export function platformKey(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = arch === 'x64' ? 'amd64' : arch === 'ia32' ? '386' : arch;
  return `${os}_${cpu}`;
}

/** sha256 hex of a file, streamed. */
export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path).on('data', (c) => h.update(c)).on('error', reject).on('end', () => resolve(h.digest('hex')));
  });
}

/** Checks a downloaded archive against the manifest entry of `platform`; returns its sha256. */
export async function verifyCollectorArchive(path: string, manifest: CollectorManifest, platform = platformKey()): Promise<string> {
  const entry = manifest.archives[platform];
  if (!entry) {
    throw new SfError('SF_E_NOT_FOUND', `no pinned otelcol-contrib ${manifest.version} archive for ${platform}`, { hint: `supported platforms: ${Object.keys(manifest.archives).join(', ')}; the built-in fan-out works everywhere` });
  }
  await archiveFile(path, entry);
  const actual = await sha256File(path);
  if (actual !== entry.sha256) {
    throw new SfError('SF_E_HASH_MISMATCH', `${path} does not match the pinned sha256 of ${entry.name}`, {
      location: { file: path }, hint: `expected ${entry.sha256}, got ${actual}; download ${entry.url} again`, data: { expected: entry.sha256, actual },
    });
  }
  return actual;
}

/** A missing archive or a directory is a mistyped path (not a failed system call): say which file to pass. */
async function archiveFile(path: string, entry: CollectorArchive): Promise<void> {
  const info = await stat(path).catch((e: unknown) => {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) return undefined;
    throw e;
  });
  if (!info) throw new SfError('SF_E_NOT_FOUND', `the collector archive ${path} does not exist`, { location: { file: path }, hint: `download ${entry.url} and pass its path to --collector-archive` });
  if (!info.isFile()) throw new SfError('SF_E_USAGE', `the collector archive ${path} is not a file`, { location: { file: path }, hint: `pass the downloaded ${entry.name} itself to --collector-archive` });
}

/** Extracts `otelcol-contrib` from a verified archive into `binDir` and records its hash. */
export async function installCollectorFromArchive(archivePath: string, binDir: string, recordFile: string, manifest: CollectorManifest, platform = platformKey()): Promise<CollectorInstallRecord> {
  const archiveSha256 = await verifyCollectorArchive(archivePath, manifest, platform);
  const staging = `${binDir}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(dirname(staging), { recursive: true });
  try {
    const result = await unpackArchive(archivePath, staging);
    const exe = platform.startsWith('windows') ? 'otelcol-contrib.exe' : 'otelcol-contrib';
    if (!result.files.some((f) => f.path === exe)) throw new SfError('SF_E_ARCHIVE_MALFORMED', `${archivePath} holds no ${exe}`, { location: { file: archivePath }, hint: `pass the official otelcol-contrib ${manifest.version} release archive for ${platform} to --collector-archive` });
    await mkdir(binDir, { recursive: true });
    const binary = join(binDir, exe);
    await rm(binary, { force: true });
    await writeFileAtomic(binary, await readFile(join(staging, exe)), { mode: 0o755 });
    await chmod(binary, 0o755);
    const record: CollectorInstallRecord = { version: manifest.version, platform, archiveSha256, binary, binarySha256: await sha256File(binary), installedAt: new Date().toISOString() };
    await writeFileAtomic(recordFile, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
    return record;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

// `sf observe update` rewrites host configs only; the collector comes from an archive the user downloads
const REINSTALL = 'sf observe install --collector-archive <the pinned archive> --yes';

/** Re-verifies an installed binary against its install record and the pinned version. */
export async function verifyInstalledCollector(recordFile: string, manifest: CollectorManifest): Promise<CollectorInstallRecord> {
  let record: CollectorInstallRecord;
  try {
    record = JSON.parse(await readFile(recordFile, 'utf8')) as CollectorInstallRecord;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) throw new SfError('SF_E_NOT_FOUND', 'otelcol-contrib is not installed by Forge', { location: { file: recordFile }, hint: 'run `sf observe install` with the collector option, or keep the built-in fan-out' });
    throw e;
  }
  if (record.version !== manifest.version) {
    throw new SfError('SF_E_CONFLICT', `the installed otelcol-contrib is ${record.version}; this sf pins ${manifest.version}`, { hint: `install the pinned release: sf observe install --collector-archive <otelcol-contrib_${manifest.version} archive> --yes` });
  }
  let actual: string;
  try {
    actual = await sha256File(record.binary);
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) throw new SfError('SF_E_NOT_FOUND', `the otelcol-contrib binary ${record.binary} is missing`, { location: { file: record.binary }, hint: `install it again: ${REINSTALL}` });
    throw e;
  }
  if (actual !== record.binarySha256) {
    throw new SfError('SF_E_HASH_MISMATCH', `${record.binary} changed since Forge installed it`, { location: { file: record.binary }, hint: `reinstall it (${REINSTALL}); Forge never runs a modified collector`, data: { expected: record.binarySha256, actual } });
  }
  return record;
}
