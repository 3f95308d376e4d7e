import { SfError } from '../errors/index.js';
import type { ArchiveFormat } from './types.js';

const OTHER_FORMATS: [string, number[]][] = [
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['rar', [0x52, 0x61, 0x72, 0x21]],
];

const startsWith = (head: Buffer, magic: number[], at = 0) => magic.every((b, i) => head[at + i] === b);

/**
 * Decides the format from the first bytes (at least 512 when available), never from the file
 * name: gzip (1f 8b 08) is read as a gzipped tar, `PK\3\4` / `PK\5\6` as zip, a block with the
 * `ustar` magic (POSIX or GNU) as tar. An all-zero first block is an empty tar. Anything else
 * is `SF_E_ARCHIVE_FORMAT`; `displayName` only appears in the message.
 */
export function detectFormat(head: Buffer, displayName = 'the input'): ArchiveFormat {
  if (startsWith(head, [0x1f, 0x8b, 0x08])) return 'tar.gz';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (head.length >= 512 && startsWith(head, [0x75, 0x73, 0x74, 0x61, 0x72], 257)) return 'tar';
  if (head.length >= 512 && head.subarray(0, 512).every((b) => b === 0)) return 'tar';
  const other = OTHER_FORMATS.find(([, magic]) => startsWith(head, magic));
  const what = other ? `${other[0]}-compressed data` : head.length === 0 ? 'empty' : 'not a tar, gzip or zip archive';
  throw new SfError('SF_E_ARCHIVE_FORMAT', `${displayName} is ${what}`, {
    hint: 'use a .tar, .tar.gz / .tgz (POSIX ustar) or .zip archive',
    data: { detected: other ? other[0] : 'unknown' },
  });
}
