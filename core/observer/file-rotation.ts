import { rename, stat, unlink } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';

/**
 * Size-capped file destinations, like the OpenTelemetry Collector's file exporter: when the next
 * line would take the file past `maxMegabytes`, it becomes `<path>.1` (an older `.1` becomes `.2`,
 * and so on), at most `maxBackups` are kept and the oldest is deleted. A line larger than the cap
 * still goes into a file of its own: telemetry is never cut in half.
 */

export interface FileRotation {
  /** the size a file may reach before it is rotated, in MiB */
  maxMegabytes: number;
  /** rotated files kept (`<path>.1` newest ... `<path>.<maxBackups>` oldest); 0 keeps none */
  maxBackups: number;
}

export const DEFAULT_FILE_ROTATION: FileRotation = { maxMegabytes: 100, maxBackups: 5 };

/** The bounds config.json and the command line accept. */
export const FILE_ROTATION_LIMITS = { maxMegabytes: { min: 1, max: 1_048_576 }, maxBackups: { min: 0, max: 1000 } } as const;

/** `<path>.<n>`: the n-th most recent rotated file. */
export const rotatedPath = (path: string, n: number): string => `${path}.${n}`;

/** True when appending `incoming` bytes to a file of `size` bytes would pass the cap (an empty file always takes the line). */
export const needsRotation = (size: number, incoming: number, rotation: FileRotation): boolean =>
  size > 0 && size + incoming > rotation.maxMegabytes * 1024 * 1024;

const ignoreMissing = (e: unknown) => {
  if (!hasErrno(e, 'ENOENT')) throw e;
};

/** Rotates `path` when `incoming` more bytes would pass the cap; returns whether it did. */
export async function rotateIfFull(path: string, incoming: number, rotation: FileRotation): Promise<boolean> {
  const size = await stat(path).then((s) => s.size, (e) => (ignoreMissing(e), 0));
  if (!needsRotation(size, incoming, rotation)) return false;
  if (rotation.maxBackups === 0) {
    await unlink(path).catch(ignoreMissing);
    return true;
  }
  // oldest first, so no rename overwrites a file that is still to move
  await unlink(rotatedPath(path, rotation.maxBackups)).catch(ignoreMissing);
  for (let n = rotation.maxBackups - 1; n >= 1; n--) await rename(rotatedPath(path, n), rotatedPath(path, n + 1)).catch(ignoreMissing);
  await rename(path, rotatedPath(path, 1));
  return true;
}
