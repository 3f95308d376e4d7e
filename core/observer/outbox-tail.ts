import { open, stat } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';
import type { InventoryEvent } from '../library/types.js';

/** Bytes of the outbox read (and normalized, journaled) at a time: over a thousand install records. */
export const OUTBOX_CHUNK_BYTES = 1024 * 1024;
/** Chunks read per poll of the outbox (a poll every second): 4 MiB. */
export const OUTBOX_CHUNKS_PER_POLL = 4;
/** A record longer than a chunk is still read whole, up to this size (one read's limit before chunks). */
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

/**
 * Tails the install layer's outbox ($SF_HOME/queue/outbox.jsonl) from a persisted byte offset.
 * Only complete lines are consumed (a line being appended is read next time); a file that shrank
 * (rotated or truncated) is read again from the start. Malformed lines are skipped.
 */
export async function readOutboxFrom(file: string, offset: number, maxBytes = OUTBOX_CHUNK_BYTES): Promise<{ events: InventoryEvent[]; offset: number }> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return { events: [], offset: 0 };
    throw e;
  }
  const from = size < offset ? 0 : offset;
  if (size === from) return { events: [], offset: from };
  const fh = await open(file, 'r');
  try {
    let length = Math.min(size - from, maxBytes);
    let buf = Buffer.alloc(length);
    await fh.read(buf, 0, length, from);
    while (buf.lastIndexOf(0x0a) < 0 && length < Math.min(size - from, MAX_RECORD_BYTES)) {
      length = Math.min(size - from, MAX_RECORD_BYTES, length * 2);
      buf = Buffer.alloc(length);
      await fh.read(buf, 0, length, from);
    }
    const lastNl = buf.lastIndexOf(0x0a);
    if (lastNl < 0) return { events: [], offset: from };
    const events: InventoryEvent[] = [];
    for (const line of buf.subarray(0, lastNl).toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line) as InventoryEvent;
        if (v && v.event_name === 'agent.skill.inventory.changed' && Array.isArray(v.skills)) events.push(v);
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
      }
    }
    return { events, offset: from + lastNl + 1 };
  } finally {
    await fh.close();
  }
}
