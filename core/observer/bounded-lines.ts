import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';

/**
 * A bounded reader for the first lines of a host's own JSONL record (Codex rollout, Claude Code
 * transcript). These files grow for hours and may be large or hostile (a pasted megabyte prompt,
 * a FIFO in place of the file), and the observer reads them on its OTLP path, so the reader never
 * blocks on a non-regular file, never holds more than one line, and stops at fixed limits.
 */

export interface LineLimits {
  /** complete lines to yield at most */
  maxLines: number;
  /** a longer line is skipped (it still counts towards maxLines and maxBytes) */
  maxLineBytes: number;
  /** bytes to read from the start of the file at most */
  maxBytes: number;
}

const CHUNK = 64 * 1024;

/** Opens `file` for reading without blocking; undefined when it is absent, unreadable or not a regular file. */
async function openRegular(file: string): Promise<FileHandle | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (['ENOENT', 'ENOTDIR', 'EACCES', 'EISDIR', 'ELOOP', 'ENXIO'].some((c) => hasErrno(e, c))) return undefined;
    throw e;
  }
  if ((await fh.stat()).isFile()) return fh;
  await fh.close();
  return undefined;
}

/** The whole of a small regular file; undefined when it is absent, unreadable, not a regular file or over `maxBytes`. */
export async function readSmallRegularFile(file: string, maxBytes: number): Promise<Buffer | undefined> {
  const fh = await openRegular(file);
  if (!fh) return undefined;
  try {
    const buf = Buffer.alloc(maxBytes + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, size, buf.length - size, size);
      if (bytesRead === 0) return buf.subarray(0, size);
      size += bytesRead;
      if (size > maxBytes) return undefined;
    }
  } finally {
    await fh.close();
  }
}

/**
 * Yields the complete (newline-terminated) lines at the start of `file`, as UTF-8 text, within
 * `limits`. A last line without its newline is not yielded: the host may be writing it. Nothing
 * is yielded for a file that is missing, unreadable or not a regular file.
 */
export async function* boundedLines(file: string, limits: LineLimits): AsyncGenerator<string> {
  const fh = await openRegular(file);
  if (!fh) return;
  try {
    const buf = Buffer.alloc(CHUNK);
    let line: Buffer[] = [];
    let lineBytes = 0;
    let oversized = false;
    let lines = 0;
    let pos = 0;
    while (pos < limits.maxBytes && lines < limits.maxLines) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, limits.maxBytes - pos), pos);
      if (bytesRead === 0) return;
      pos += bytesRead;
      let start = 0;
      for (;;) {
        const nl = buf.subarray(start, bytesRead).indexOf(0x0a);
        const end = nl < 0 ? bytesRead : start + nl;
        if (!oversized) {
          lineBytes += end - start;
          if (lineBytes > limits.maxLineBytes) {
            oversized = true;
            line = [];
          } else line.push(Buffer.from(buf.subarray(start, end)));
        }
        if (nl < 0) break;
        if (!oversized) yield Buffer.concat(line).toString('utf8');
        if (++lines >= limits.maxLines) return;
        line = [];
        lineBytes = 0;
        oversized = false;
        start = end + 1;
      }
    }
  } finally {
    await fh.close();
  }
}

/** The first line of `file` when it is complete and at most `maxLineBytes` long. */
export async function firstLine(file: string, maxLineBytes: number): Promise<string | undefined> {
  for await (const line of boundedLines(file, { maxLines: 1, maxLineBytes, maxBytes: maxLineBytes + 1 })) return line;
  return undefined;
}
