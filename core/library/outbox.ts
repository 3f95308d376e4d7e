import { readFile } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';
import { appendLinesDurableSync } from '../fs/atomic.js';
import type { SfPaths } from './paths.js';
import type { InventoryEvent } from './types.js';

/**
 * The local telemetry outbox: `$SF_HOME/queue/outbox.jsonl`, append-only JSON lines. The
 * telemetry layer ships and acknowledges records later; install commands only ever append.
 */

/** Appends `events`, one line each, durably (one write and one fsync for all of them). */
export function appendOutbox(paths: SfPaths, events: readonly InventoryEvent[]): void {
  appendLinesDurableSync(paths.outbox, events.map((event) => JSON.stringify(event)));
}

/** The event ids already in the outbox (used by recovery so a replayed commit never duplicates an event). */
export async function outboxEventIds(paths: SfPaths): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(paths.outbox, 'utf8');
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return new Set();
    throw e;
  }
  const ids = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const id = (JSON.parse(line) as { event_id?: unknown }).event_id;
      if (typeof id === 'string') ids.add(id);
    } catch (e) {
      // a torn last line from a crash mid-append is skipped; the event is appended again
      if (!(e instanceof SyntaxError)) throw e;
    }
  }
  return ids;
}

/** Reads every well-formed event (for tests and `sf skit doctor`). */
export async function readOutbox(paths: SfPaths): Promise<InventoryEvent[]> {
  let text: string;
  try {
    text = await readFile(paths.outbox, 'utf8');
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return [];
    throw e;
  }
  return text
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as InventoryEvent];
      } catch (e) {
        if (e instanceof SyntaxError) return [];
        throw e;
      }
    });
}
