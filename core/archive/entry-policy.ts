import { checkRelativePath, PATH_PROBLEM_TEXT } from '../skit/safe-path.js';
import { displayEntryName, entryError, MALFORMED_HINT } from './archive-error.js';
import { CollisionTracker } from './collisions.js';
import type { ArchiveLimits } from './limits.js';
import type { AcceptedEntry, EntryHeader } from './types.js';

const KIND_TEXT: Record<string, string> = {
  symlink: 'a symbolic link',
  hardlink: 'a hard link',
  'character-device': 'a character device',
  'block-device': 'a block device',
  fifo: 'a FIFO (named pipe)',
  socket: 'a socket',
  other: 'an unsupported entry type',
};

/** Names that denote the archive root: only a plain directory entry may use them. */
const ROOT_NAMES = new Set(['.', './']);

const MiB = (n: number) => (n < 1024 * 1024 ? `${n} bytes` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

/**
 * The one rule set every archive entry passes before anything is written, whatever the format:
 * only regular files and directories, safe relative names (core/skit/safe-path.ts), no special
 * permission bits, no duplicates or collisions, and the entry-count and size limits. It is
 * stateful (counts, sizes, names seen), so use one instance per archive.
 */
export class EntryPolicy {
  private readonly collisions = new CollisionTracker();
  private entries = 0;
  private files = 0;
  private declaredTotal = 0;
  private actualTotal = 0;

  constructor(readonly limits: ArchiveLimits) {}

  /**
   * Checks a header; returns the accepted entry, or null for a directory entry that names the
   * archive root itself ("./", written by `tar -C dir -cf x .`), or throws an SfError naming it.
   */
  admit(header: EntryHeader): AcceptedEntry | null {
    const { limits } = this;
    if (++this.entries > limits.maxEntries) {
      throw entryError('SF_E_ARCHIVE_LIMIT', header.name, `the archive has more than ${limits.maxEntries} entries`,
        'split the content, or raise limits.maxEntries if you trust the source', { limit: 'maxEntries' });
    }
    if (ROOT_NAMES.has(header.name)) {
      if (header.kind === 'directory' && header.size === 0 && (header.mode & 0o7000) === 0) return null;
      throw entryError('SF_E_ARCHIVE_UNSAFE', header.name, 'entry names the extraction root itself, which may only be a directory',
        'remove the entry for "." from the archive', { problem: 'root' });
    }
    const path = this.checkName(header);
    const fromWhere = header.nameSource ? ` (name from ${header.nameSource})` : '';
    if (header.kind !== 'file' && header.kind !== 'directory') {
      const target = header.linkTarget === undefined ? '' : ` pointing to "${displayEntryName(header.linkTarget)}"`;
      throw entryError('SF_E_ARCHIVE_UNSAFE', header.name, `entry is ${KIND_TEXT[header.kind]}${target}${fromWhere}, which is never extracted`,
        'SKIT archives may contain only regular files and directories; replace links with copies of the files',
        { problem: header.kind, ...(header.linkTarget === undefined ? {} : { linkTarget: displayEntryName(header.linkTarget) }) });
    }
    if (header.mode & 0o7000) {
      throw entryError('SF_E_ARCHIVE_UNSAFE', header.name, `entry has the setuid, setgid or sticky bit set (mode ${(header.mode & 0o7777).toString(8)})`,
        'remove the special permission bits (chmod u-s,g-s,-t) and re-create the archive', { problem: 'special-mode' });
    }
    // tar-stream decodes a base-256 size of -1 (0xff x 12) as -0, which `< 0` lets through
    if (!Number.isSafeInteger(header.size) || header.size < 0 || Object.is(header.size, -0)) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', header.name, `entry has an invalid size (${Object.is(header.size, -0) ? 'negative' : header.size})`, MALFORMED_HINT);
    }
    if (header.kind === 'directory' && header.size !== 0) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', header.name, `directory entry carries ${header.size} bytes of data`, MALFORMED_HINT);
    }
    this.checkSizes(header.name, header.size);
    const conflict = this.collisions.add(path, header.kind === 'file');
    if (conflict) {
      const what = conflict.kind === 'duplicate' ? 'appears twice in the archive'
        : conflict.kind === 'file-vs-directory' ? `is both a file and a directory (with "${conflict.prior}")`
        : `collides with "${conflict.prior}" on case-insensitive or Unicode-normalizing filesystems`;
      throw entryError('SF_E_ARCHIVE_UNSAFE', header.name, `entry ${what}`,
        'give every file a distinct name that differs in more than letter case or Unicode normalization',
        { problem: conflict.kind, prior: conflict.prior });
    }
    if (header.kind === 'file') this.files++;
    return { path, kind: header.kind, mode: header.mode & 0o111 ? 'exec' : 'file', size: header.size };
  }

  /** The safe path of `header`, without a directory's trailing slash; throws when unsafe. */
  private checkName(header: EntryHeader): string {
    const { limits } = this;
    // "./a" is how `tar -C dir -cf x .` names "a"; only leading "./" is removed, "a/./b" stays unsafe
    const name = header.name.replace(/^(\.\/)+/, '');
    const fromWhere = header.nameSource ? ` (name from ${header.nameSource})` : '';
    const path = header.kind === 'directory' && name.length > 1 && name.endsWith('/') ? name.slice(0, -1) : name;
    if (Buffer.byteLength(path) > limits.maxPathBytes || path.split('/').length > limits.maxPathDepth) {
      throw entryError('SF_E_ARCHIVE_LIMIT', header.name, `entry path is longer than ${limits.maxPathBytes} bytes or deeper than ${limits.maxPathDepth} levels`,
        'use shorter, flatter paths', { limit: 'maxPathBytes/maxPathDepth' });
    }
    if (header.kind === 'file' && path.endsWith('/')) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', header.name, 'a file entry has a directory name (trailing slash)', MALFORMED_HINT);
    }
    if (path.includes('\ufffd')) {
      throw entryError('SF_E_ARCHIVE_UNSAFE', header.name, `entry name is not valid UTF-8${fromWhere}`,
        're-create the archive with UTF-8 file names', { problem: 'encoding' });
    }
    const problem = checkRelativePath(path);
    if (problem === 'too-long') {
      throw entryError('SF_E_ARCHIVE_LIMIT', header.name, `entry path is too long: ${PATH_PROBLEM_TEXT[problem]}`, 'use shorter paths', { limit: 'path' });
    }
    if (problem !== null) {
      throw entryError('SF_E_ARCHIVE_UNSAFE', header.name, `unsafe entry name${fromWhere}: ${PATH_PROBLEM_TEXT[problem]}`,
        'archive entries must be relative paths inside the archive, with forward slashes and portable names', { problem });
    }
    return path;
  }

  private checkSizes(name: string, size: number): void {
    const { limits } = this;
    if (size > limits.maxEntrySize) {
      throw entryError('SF_E_ARCHIVE_LIMIT', name, `entry declares ${MiB(size)}, over the per-file limit of ${MiB(limits.maxEntrySize)}`,
        'remove large files from the SKIT, or raise limits.maxEntrySize if you trust the source', { limit: 'maxEntrySize', size });
    }
    this.declaredTotal += size;
    if (this.declaredTotal > limits.maxTotalSize) {
      throw entryError('SF_E_ARCHIVE_LIMIT', name, `the archive declares more than ${MiB(limits.maxTotalSize)} of file data`,
        'make the SKIT smaller, or raise limits.maxTotalSize if you trust the source', { limit: 'maxTotalSize' });
    }
  }

  /**
   * Passes `data` through while counting it: more bytes than declared, than the per-file limit or
   * than the total limit stop the stream at once; fewer than declared is a truncated entry.
   */
  async *meter(entry: AcceptedEntry, data: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let seen = 0;
    for await (const chunk of data) {
      seen += chunk.length;
      this.actualTotal += chunk.length;
      if (seen > entry.size) {
        throw entryError('SF_E_ARCHIVE_MALFORMED', entry.path, `entry holds more data than the ${entry.size} bytes its header declares`,
          `${MALFORMED_HINT} (a mismatch like this is a zip-bomb technique)`, { declared: entry.size });
      }
      if (this.actualTotal > this.limits.maxTotalSize) {
        throw entryError('SF_E_ARCHIVE_LIMIT', entry.path, `the archive holds more than ${MiB(this.limits.maxTotalSize)} of file data`,
          'make the SKIT smaller, or raise limits.maxTotalSize if you trust the source', { limit: 'maxTotalSize' });
      }
      yield chunk;
    }
    if (seen < entry.size) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', entry.path, `entry ends after ${seen} of ${entry.size} declared bytes`, MALFORMED_HINT);
    }
  }

  /** Called after the last entry: an archive without a single file is refused. */
  finish(): void {
    if (this.files === 0) {
      throw entryError('SF_E_ARCHIVE_MALFORMED', undefined, 'the archive contains no files',
        'a SKIT archive must contain at least README.md or SKILL.md; check that the right file was given');
    }
  }

  get entryCount(): number {
    return this.entries;
  }
}
