import { open, stat } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';
import type { InventoryEvent } from '../library/types.js';

/**
 * Tails the install layer's outbox ($SF_HOME/queue/outbox.jsonl) from a persisted byte offset.
 * Only complete lines are consumed (a line being appended is read next time); a file that shrank
 * (rotated or truncated) is read again from the start. Malformed lines are skipped.
 */
export async function readOutboxFrom(file: string, offset: number, maxBytes = 4 * 1024 * 1024): Promise<{ events: InventoryEvent[]; offset: number }> {
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
    const length = Math.min(size - from, maxBytes);
    const buf = Buffer.alloc(length);
    await fh.read(buf, 0, length, from);
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
