import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import { hasErrno } from '../errors/index.js';

/**
 * The spool of host hooks and plugins: when the observer is unreachable they append
 * `{"at": <unix seconds>, "message": <observer message>}` lines to `<spool dir>/<host>.jsonl`
 * instead of blocking the agent. The observer replays them when it starts (and on housekeeping),
 * oldest first; lines older than `maxAgeSeconds` or not JSON are dropped and counted.
 */

export interface SpoolReplay {
  replayed: number;
  dropped: number;
}

export interface SpoolBacklog {
  files: number;
  lines: number;
  bytes: number;
}

/** Spooled lines waiting (for `sf observe status` and doctor). */
export async function spoolBacklog(dir: string): Promise<SpoolBacklog> {
  const out: SpoolBacklog = { files: 0, lines: 0, bytes: 0 };
  for (const name of await spoolFiles(dir)) {
    const text = await readFile(join(dir, name), 'utf8').catch((e: unknown) => (hasErrno(e, 'ENOENT') ? '' : Promise.reject(e)));
    if (!text) continue;
    out.files++;
    out.bytes += Buffer.byteLength(text);
    out.lines += text.split('\n').filter((l) => l.trim()).length;
  }
  return out;
}

async function spoolFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => n.endsWith('.jsonl') || /\.jsonl\.replaying-\d+$/.test(n)).sort();
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return [];
    throw e;
  }
}

/**
 * How long a taken spool file must stay the same size before it is deleted. A hook that opened
 * `<host>.jsonl` just before the rename appends to the renamed file (same inode) a moment later;
 * without this wait that line was read past and deleted with the file.
 */
const SETTLE_MS = 50;

/**
 * Takes every spool file (renamed first, so hooks appending meanwhile start a new file), hands
 * each message to `deliver` in order, and deletes the taken file once no late append arrived for
 * SETTLE_MS. Never throws for bad lines.
 */
export async function replaySpool(dir: string, deliver: (message: unknown) => Promise<void>, maxAgeSeconds = 12 * 3600, now = () => Date.now()): Promise<SpoolReplay> {
  const result: SpoolReplay = { replayed: 0, dropped: 0 };
  const replayLine = async (line: string): Promise<void> => {
    if (!line.trim()) return;
    let entry: { at?: unknown; message?: unknown };
    try {
      entry = JSON.parse(line) as { at?: unknown; message?: unknown };
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      result.dropped++;
      return;
    }
    const at = typeof entry.at === 'number' ? entry.at : 0;
    if (!entry.message || now() / 1000 - at > maxAgeSeconds) {
      result.dropped++;
      return;
    }
    await deliver(entry.message);
    result.replayed++;
  };
  for (const name of await spoolFiles(dir)) {
    // a file left `.replaying-` by an observer that died mid-replay is taken as it is (one observer runs at a time)
    const taken = name.includes('.replaying-') ? join(dir, name) : join(dir, `${name}.replaying-${process.pid}`);
    try {
      if (taken !== join(dir, name)) await rename(join(dir, name), taken);
    } catch (e) {
      if (hasErrno(e, 'ENOENT')) continue;
      throw e;
    }
    await drainUntilSettled(taken, replayLine);
    await unlink(taken);
  }
  return result;
}

/**
 * Hands every line of `path` to `replayLine`, then keeps reading what late appends add until the
 * file has not grown for SETTLE_MS. Only complete lines are taken while it may still grow (an
 * append caught half-written is finished by the next read); a last line without its newline is
 * taken at the end.
 */
async function drainUntilSettled(path: string, replayLine: (line: string) => Promise<void>): Promise<void> {
  const file = await open(path, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    let offset = 0;
    let partial = '';
    for (;;) {
      const { size } = await file.stat();
      if (size <= offset) {
        await sleep(SETTLE_MS);
        if ((await file.stat()).size <= offset) break;
        continue;
      }
      const chunk = Buffer.alloc(size - offset);
      const { bytesRead } = await file.read(chunk, 0, chunk.length, offset);
      offset += bytesRead;
      const lines = (partial + decoder.write(chunk.subarray(0, bytesRead))).split('\n');
      partial = lines.pop()!;
      for (const line of lines) await replayLine(line);
    }
    await replayLine(partial + decoder.end());
  } finally {
    await file.close();
  }
}
