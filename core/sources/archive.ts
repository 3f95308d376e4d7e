import { mkdir, mkdtemp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SfError } from '../errors/index.js';
import { describeTree } from './describe.js';
import { discoverLayout } from './discover.js';
import { download } from './download.js';
import { canonicalUrl, identity, urlIdentityKey } from './identity.js';
import { limitsOf } from './limits.js';
import { redactUrl } from './redact.js';
import { SCRATCH_MODE, type ResolvedSource, type ResolveOptions, type SourceResolver } from './types.js';

/** .zip, .tar, .tar.gz and .tgz — the guaranteed archive formats. */
export const ARCHIVE_EXTENSION = /\.(zip|tar|tar\.gz|tgz)$/i;

export type ArchiveFormat = 'zip' | 'tar' | 'tgz';

/** The archive format from the first bytes (zip local or empty-archive header, gzip, ustar), or undefined. */
export function sniffArchive(bytes: Uint8Array): ArchiveFormat | undefined {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5)) return 'zip';
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tgz';
  if (bytes.length >= 262 && Buffer.from(bytes.subarray(257, 262)).toString('latin1') === 'ustar') return 'tar';
  return undefined;
}

/**
 * Safely unpacks an archive (a file path or downloaded bytes; format by magic bytes) with
 * core/archive into a fresh directory inside `workDir`, and returns the SKIT root: the unpacked
 * top level, or its single directory when the top level holds nothing else and no recognizable
 * layout (the usual `<repo>-<ref>/` wrapper of code-host archives). Not `strip: 'auto'`: that would
 * also unwrap a SKIT whose only top-level entry is `skills/`.
 */
export async function materializeArchive(archive: string | Buffer, workDir: string): Promise<string> {
  // the archive readers (zlib, streams, tar and zip parsers) load only for an archive source
  const { unpackArchive } = await import('../archive/index.js');
  await mkdir(workDir, { recursive: true, mode: SCRATCH_MODE });
  const dest = join(await mkdtemp(join(workDir, 'archive-')), 'tree');
  await unpackArchive(archive, dest, { strip: 0 });
  if (discoverLayout(dest).kind !== 'empty') return dest;
  const entries = await readdir(dest, { withFileTypes: true });
  if (entries.length === 1 && entries[0].isDirectory()) return join(dest, entries[0].name);
  return dest;
}

/** Materializes downloaded archive bytes as a resolved source with a URL identity. */
export async function resolveArchiveBytes(bytes: Buffer, url: string, options: ResolveOptions): Promise<ResolvedSource> {
  const shown = redactUrl(url);
  if (!sniffArchive(bytes)) {
    throw new SfError('SF_E_ARCHIVE_FORMAT', `${shown} is not a zip, tar or gzip-compressed tar archive`, {
      hint: 'serve a .zip, .tar, .tar.gz or .tgz file',
      data: { url: shown },
    });
  }
  const dir = await materializeArchive(bytes, options.workDir);
  const canonical = canonicalUrl(url, { keepQuery: true });
  return describeTree(dir, { kind: 'archive', canonical, ...identity(urlIdentityKey(canonical)) }, shown);
}

function isHttpArchiveUrl(input: string): boolean {
  if (!/^https?:\/\//i.test(input)) return false;
  try {
    return ARCHIVE_EXTENSION.test(new URL(input).pathname);
  } catch {
    return false; // not a URL at all: another resolver (or the SF_E_SOURCE hint) handles it
  }
}

/** http(s) URLs whose path ends in an archive extension. Local archive files go through the local resolver. */
export const archiveUrlResolver: SourceResolver = {
  name: 'archive-url',
  forms: ['https://host/path/kit.tgz (also .zip, .tar, .tar.gz)'],
  matches: isHttpArchiveUrl,
  async resolve(input: string, options: ResolveOptions): Promise<ResolvedSource> {
    rejectVersion(input, options);
    const limits = limitsOf(options);
    const { bytes } = await download(input, {
      fetch: options.fetch ?? fetch,
      timeoutMs: limits.timeoutMs,
      maxRedirects: limits.maxRedirects,
      maxBytes: limits.maxArchiveBytes,
    });
    return resolveArchiveBytes(bytes, input, options);
  },
};

/** `--version` only means something for git refs and hub releases. */
export function rejectVersion(input: string, options: ResolveOptions): void {
  if (options.version === undefined) return;
  throw new SfError('SF_E_USAGE', `--version ${options.version} cannot apply to ${redactUrl(input)}: it names one fixed tree`, {
    hint: '--version selects a hub release or a git ref; drop it for paths, URLs and archives',
  });
}
