import { dirname } from 'node:path';
import { jsonObjectToProtobuf } from '../telemetry/otlp/encode.js';
import type { Target } from './destinations.js';
import { DEFAULT_FILE_ROTATION, rotateIfFull, type FileRotation } from './file-rotation.js';
import { ensureDirectory, fileAttempt, openForAppend } from './file-write.js';
import { sendOtlp, type SendResult } from './http-send.js';
import type { ObserverStore, QueueItem } from './store.js';

/**
 * One delivery worker per destination: drains the destination's LMDB queue in order, acking
 * delivered items, rescheduling retryable failures with exponential backoff (or Retry-After) and
 * dropping items that are rejected or older than the queue's maximum age. A dead destination only
 * ever grows its own bounded queue; nothing upstream waits for it.
 */

export interface DeliveryOptions {
  maxAgeMs: number;
  /** first retry delay; doubles per attempt up to maxBackoffMs */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
}

export function backoffMs(attempts: number, base: number, max: number): number {
  const raw = Math.min(max, base * 2 ** Math.min(attempts, 20));
  return Math.round(raw * (0.8 + Math.random() * 0.4));
}

/**
 * Appends one line to a file destination, rotating the file first when the line would take it
 * past its size cap (file-rotation.ts). A new file is created 0600; an existing one that other
 * users may read or write (0644 from an earlier tool, a copy) is made 0600 before telemetry goes
 * in, through the open descriptor. A file Forge cannot make private gets nothing (an error the
 * queue retries and `sf observe doctor` reports).
 */
export async function appendToFileDestination(path: string, line: string, rotation: FileRotation = DEFAULT_FILE_ROTATION): Promise<void> {
  await ensureDirectory(dirname(path));
  await rotateIfFull(path, Buffer.byteLength(line) + 1, rotation);
  const fh = await openForAppend(path);
  try {
    const { mode } = await fh.stat();
    if (mode & 0o077) {
      try {
        await fh.chmod(0o600);
      } catch (e) {
        throw new Error(`${path} is readable by other users (mode ${(mode & 0o777).toString(8)}) and could not be made private (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); chmod 600 it`);
      }
    }
    await fh.appendFile(line + '\n');
  } finally {
    await fh.close();
  }
}

async function deliver(target: Target, item: QueueItem, abort: AbortSignal): Promise<SendResult> {
  if (target.kind === 'file') {
    // a deadline like an OTLP attempt's, and cut short by stop(): the file system may hang too
    try {
      await fileAttempt(target.path, () => appendToFileDestination(target.path, item.body, target.rotation), { abort });
      return { kind: 'ok', status: 0 };
    } catch (e) {
      return { kind: 'retry', error: (e as Error).message };
    }
  }
  let headers: Record<string, string>;
  try {
    headers = await target.headers();
  } catch (e) {
    return { kind: 'retry', error: (e as Error).message };
  }
  const json = target.protocol === 'json';
  const body = json ? Buffer.from(item.body) : await jsonObjectToProtobuf(item.signal, JSON.parse(item.body) as Record<string, unknown>);
  return sendOtlp({ url: `${target.endpoint}/v1/${item.signal}`, body, contentType: json ? 'application/json' : 'application/x-protobuf', headers, signal: item.signal, abort });
}

export class DeliveryWorker {
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  /** ends the attempt in flight when the worker stops: shutdown never waits for a destination */
  private readonly stopping = new AbortController();

  constructor(readonly target: Target, private readonly store: ObserverStore, private readonly opts: DeliveryOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** New items were queued: try now (unless the head item is backing off). */
  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wake();
    await this.loopDone;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        resolve();
      };
      this.timer = setTimeout(() => this.wakeUp?.(), ms);
    });
  }

  private async loop(): Promise<void> {
    const now = this.opts.now ?? Date.now;
    const name = this.target.name;
    while (this.running) {
      const head = this.store.head(name);
      if (!head) {
        await this.sleep(5000);
        continue;
      }
      const { key, item } = head;
      if (now() - item.enqueuedAt > this.opts.maxAgeMs) {
        this.store.drop(name, key, 'expired', 'gave up: older than the queue maximum age');
        continue;
      }
      if (item.nextAttemptAt > now()) {
        // a retry is due later: new items wait behind it, keeping the destination's order
        await this.sleep(item.nextAttemptAt - now());
        continue;
      }
      this.store.markSending(name, key);
      const res = await deliver(this.target, item, this.stopping.signal);
      // cut short by stop(): the item stays queued as it was, for the next start
      if (this.stopping.signal.aborted && res.kind === 'retry') break;
      if (res.kind === 'ok') this.store.ack(name, key, res.partial);
      else if (res.kind === 'fail') this.store.drop(name, key, 'rejected', res.error);
      else this.store.retry(name, key, now() + (res.retryAfterMs ?? backoffMs(item.attempts, this.opts.baseBackoffMs ?? 1000, this.opts.maxBackoffMs ?? 60_000)), res.error);
    }
  }
}
