import { chmod, mkdir, open as openFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { SfError } from '../errors/index.js';
import type { OtlpSignal } from '../telemetry/otlp/types.js';

/**
 * The observer's LMDB environment ($SF_HOME/queue/observer.lmdb): a bounded FIFO retry queue per
 * destination, delivery counters, the persisted event-sequence block and tail offsets. Every
 * change is one write transaction, so counters and queue never disagree after a crash.
 *
 *   q\0<dest>\0<16-digit n>  -> QueueItem
 *   size\0<dest>             -> { items, records }
 *   stats\0<dest>            -> DestinationStats
 *   j\0<16-digit n>          -> JournalEntry (accepted, not yet batched)
 *   meta:qseq | meta:jseq | meta:eventseq | offset\0<name>
 *
 * The journal is what makes an acknowledgement durable: normalized output is written to it before
 * the receiver answers (or a tail offset moves), and a flush moves it into every destination's
 * queue in the same transaction that deletes it, so a crash loses nothing accepted and copies
 * nothing twice.
 */

export interface QueueItem {
  signal: OtlpSignal;
  /** the OTLP/JSON Export*ServiceRequest, serialized */
  body: string;
  records: number;
  /** holds an always-retain event (spec: selections, load failures, interventions ...): dropped last */
  retain?: boolean;
  enqueuedAt: number;
  attempts: number;
  nextAttemptAt: number;
}

/** Normalized output accepted but not yet batched (the pipeline's buffer, on disk). */
export interface JournalEntry {
  events: unknown[];
  spans: unknown[];
}

/** One request for every destination's queue. */
export type OutgoingItem = Omit<QueueItem, 'attempts' | 'nextAttemptAt' | 'enqueuedAt'>;

export interface CanaryResult {
  ok: boolean;
  at: number;
  latencyMs: number;
  status?: number;
  error?: string;
}

export interface DestinationStats {
  /** records accepted by the destination */
  delivered: number;
  /** records whose delivery attempt failed retryably and was rescheduled */
  retried: number;
  /** records given up (queue full, too old, rejected by the destination, destination removed) */
  dropped: number;
  droppedBy: Record<string, number>;
  lastError?: string;
  lastErrorAt?: number;
  /** the message of the last partial success that rejected nothing (OTLP: a warning, e.g. the hub kept unknown enum values) */
  lastWarning?: string;
  lastWarningAt?: number;
  lastSuccessAt?: number;
  canary?: CanaryResult;
}

export interface QueueSize {
  items: number;
  records: number;
}

const Q = 'q\u0000';
const qKey = (dest: string, n: number) => `${Q}${dest}\u0000${String(n).padStart(16, '0')}`;
const qPrefix = (dest: string) => `${Q}${dest}\u0000`;
const J = 'j\u0000';
const jKey = (n: number) => `${J}${String(n).padStart(16, '0')}`;
const next = (prefix: string) => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
const emptyStats = (): DestinationStats => ({ delivered: 0, retried: 0, dropped: 0, droppedBy: {} });

export class ObserverStore {
  /** per destination, the item its worker is sending now (never a queue_full victim) */
  private readonly sending = new Map<string, string>();

  private constructor(private readonly db: RootDatabase<unknown, string>) {}

  /** The worker is about to send `key`: making room in the queue must not drop it meanwhile. */
  markSending(dest: string, key: string): void {
    this.sending.set(dest, key);
  }

  private doneSending(dest: string, key: string): void {
    if (this.sending.get(dest) === key) this.sending.delete(dest);
  }

  static async open(path: string): Promise<ObserverStore> {
    await ownerOnly(path);
    const { open } = await import('lmdb');
    try {
      return new ObserverStore(open<unknown, string>({ path, noSubdir: true, encoding: 'msgpack', compression: false }));
    } catch (e) {
      throw new SfError('SF_E_IO', `could not open the observer queue at ${path}: ${(e as Error).message}`, {
        location: { file: path }, hint: 'check that $SF_HOME is on a local, writable filesystem', cause: e,
      });
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  size(dest: string): QueueSize {
    return (this.db.get(`size\u0000${dest}`) as QueueSize | undefined) ?? { items: 0, records: 0 };
  }

  stats(dest: string): DestinationStats {
    return (this.db.get(`stats\u0000${dest}`) as DestinationStats | undefined) ?? emptyStats();
  }

  private bump(dest: string, change: (s: DestinationStats) => void): void {
    const s = this.stats(dest);
    change(s);
    this.db.putSync(`stats\u0000${dest}`, s);
  }

  private resize(dest: string, items: number, records: number): void {
    const s = this.size(dest);
    this.db.putSync(`size\u0000${dest}`, { items: Math.max(0, s.items + items), records: Math.max(0, s.records + records) });
  }

  private dropInTxn(dest: string, key: string, item: QueueItem, reason: string, error?: string): void {
    this.db.removeSync(key);
    this.resize(dest, -1, -item.records);
    this.bump(dest, (s) => {
      s.dropped += item.records;
      s.droppedBy[reason] = (s.droppedBy[reason] ?? 0) + item.records;
      if (error) Object.assign(s, { lastError: error, lastErrorAt: Date.now() });
    });
  }

  /**
   * Appends an item to a destination's queue; while the queue holds more than `maxRecords`
   * records the oldest items are dropped (counted as dropped: queue_full). Returns dropped records.
   */
  enqueue(dest: string, item: OutgoingItem, maxRecords: number, now = Date.now()): number {
    return this.db.transactionSync(() => this.enqueueInTxn(dest, item, maxRecords, now));
  }

  private enqueueInTxn(dest: string, item: OutgoingItem, maxRecords: number, now: number): number {
    const n = ((this.db.get('meta:qseq') as number | undefined) ?? 0) + 1;
    this.db.putSync('meta:qseq', n);
    this.db.putSync(qKey(dest, n), { ...item, enqueuedAt: now, attempts: 0, nextAttemptAt: now } satisfies QueueItem);
    this.resize(dest, 1, item.records);
    let dropped = 0;
    while (this.size(dest).records > maxRecords && this.size(dest).items > 1) {
      // the oldest item that holds no always-retain event goes first; only then the oldest of all;
      // never the one being sent (its destination may be storing it right now)
      const victim = this.oldestDroppable(dest, false) ?? this.oldestDroppable(dest, true);
      if (!victim) break;
      dropped += victim.item.records;
      this.dropInTxn(dest, victim.key, victim.item, 'queue_full');
    }
    return dropped;
  }

  /**
   * Journals accepted output (and moves a tail offset with it, in the same transaction): once
   * this returns, a crash before the next flush loses none of it.
   */
  appendJournal(entry: JournalEntry, offset?: { name: string; value: number }): void {
    this.db.transactionSync(() => {
      const n = ((this.db.get('meta:jseq') as number | undefined) ?? 0) + 1;
      this.db.putSync('meta:jseq', n);
      this.db.putSync(jKey(n), entry);
      if (offset) this.db.putSync(`offset\u0000${offset.name}`, offset.value);
    });
  }

  /** Records (events and spans) in the journal: what a stopped observer accepted but had not queued. */
  journalRecords(): number {
    let n = 0;
    for (const { value } of this.db.getRange({ start: J, end: next(J) })) n += (value as JournalEntry).events.length + (value as JournalEntry).spans.length;
    return n;
  }

  /**
   * Moves the whole journal into every destination's queue in one transaction: `build` turns the
   * journaled entries into requests. Returns the requests queued.
   */
  drainJournal(build: (entries: JournalEntry[]) => OutgoingItem[], dests: readonly string[], maxRecords: number, now = Date.now()): OutgoingItem[] {
    return this.db.transactionSync(() => {
      const keys: string[] = [];
      const entries: JournalEntry[] = [];
      for (const { key, value } of this.db.getRange({ start: J, end: next(J) })) {
        keys.push(key as string);
        entries.push(value as JournalEntry);
      }
      if (!entries.length) return [];
      const items = build(entries);
      for (const item of items) for (const dest of dests) this.enqueueInTxn(dest, item, maxRecords, now);
      for (const key of keys) this.db.removeSync(key);
      return items;
    });
  }

  /** The oldest item not being sent, without an always-retain event unless `retainToo` (the one being added included). */
  private oldestDroppable(dest: string, retainToo: boolean): { key: string; item: QueueItem } | undefined {
    const inFlight = this.sending.get(dest);
    for (const { key, value } of this.db.getRange({ start: qPrefix(dest), end: next(qPrefix(dest)) })) {
      if (key !== inFlight && (retainToo || !(value as QueueItem).retain)) return { key: key as string, item: value as QueueItem };
    }
    return undefined;
  }

  /** The oldest item of a destination's queue. */
  head(dest: string): { key: string; item: QueueItem } | undefined {
    for (const { key, value } of this.db.getRange({ start: qPrefix(dest), end: next(qPrefix(dest)), limit: 1 })) return { key, item: value as QueueItem };
    return undefined;
  }

  /**
   * The destination accepted the item. Records a partial success rejected count as dropped
   * (never more than the item held, whatever the destination claims), and its message is the
   * last error. A message with nothing rejected is a warning in OTLP (the receiver kept every
   * record, e.g. with values it does not know): it is the last warning, and like a full success
   * it clears the last error.
   */
  ack(dest: string, key: string, partial?: { rejected: number; errorMessage?: string }): void {
    this.doneSending(dest, key);
    this.db.transactionSync(() => {
      const item = this.db.get(key) as QueueItem | undefined;
      if (!item) return;
      this.db.removeSync(key);
      this.resize(dest, -1, -item.records);
      const rejected = Math.min(item.records, Math.max(0, Math.trunc(partial?.rejected ?? 0)));
      this.bump(dest, (s) => {
        s.delivered += item.records - rejected;
        if (rejected) {
          s.dropped += rejected;
          s.droppedBy.rejected = (s.droppedBy.rejected ?? 0) + rejected;
        }
        const now = Date.now();
        s.lastSuccessAt = now;
        if (rejected) Object.assign(s, { lastError: `partial success: ${(partial?.errorMessage || `${rejected} record(s) rejected`).slice(0, 300)}`, lastErrorAt: now });
        else {
          // the destination works now: an earlier error is history, not its state
          delete s.lastError;
          delete s.lastErrorAt;
          if (partial?.errorMessage) Object.assign(s, { lastWarning: `partial success: ${partial.errorMessage.slice(0, 300)}`, lastWarningAt: now });
        }
      });
    });
  }

  /** A retryable failure: reschedule (counted as retried). */
  retry(dest: string, key: string, nextAttemptAt: number, error: string): void {
    this.doneSending(dest, key);
    this.db.transactionSync(() => {
      const item = this.db.get(key) as QueueItem | undefined;
      if (!item) return;
      this.db.putSync(key, { ...item, attempts: item.attempts + 1, nextAttemptAt });
      this.bump(dest, (s) => Object.assign(s, { retried: s.retried + item.records, lastError: error, lastErrorAt: Date.now() }));
    });
  }

  /** Gives up on an item (counted as dropped under `reason`). */
  drop(dest: string, key: string, reason: string, error?: string): void {
    this.doneSending(dest, key);
    this.db.transactionSync(() => {
      const item = this.db.get(key) as QueueItem | undefined;
      if (item) this.dropInTxn(dest, key, item, reason, error);
    });
  }

  /** Empties the queue of a destination that no longer exists (dropped: destination_removed). */
  purge(dest: string): void {
    this.db.transactionSync(() => {
      for (const { key, value } of this.db.getRange({ start: qPrefix(dest), end: next(qPrefix(dest)) })) this.dropInTxn(dest, key, value as QueueItem, 'destination_removed');
    });
  }

  /** Names of every destination with queued items or counters. */
  knownDestinations(): string[] {
    const names = new Set<string>();
    for (const key of this.db.getKeys({ start: 'stats\u0000', end: next('stats\u0000') })) names.add(String(key).slice('stats\u0000'.length));
    for (const key of this.db.getKeys({ start: 'size\u0000', end: next('size\u0000') })) names.add(String(key).slice('size\u0000'.length));
    return [...names];
  }

  setCanary(dest: string, result: CanaryResult): void {
    this.db.transactionSync(() => this.bump(dest, (s) => (s.canary = result)));
  }

  getOffset(name: string): number {
    return (this.db.get(`offset\u0000${name}`) as number | undefined) ?? 0;
  }

  setOffset(name: string, value: number): void {
    this.db.putSync(`offset\u0000${name}`, value);
  }
}

/**
 * The queue holds telemetry metadata: other users must not read it. lmdb-js creates its data and
 * lock files 0664 minus the umask (0644 usually), and `mkdir`'s mode applies only to a directory it
 * creates (the OpenCode plugin's spool may have made `queue/` with the umask first). So the
 * directory is set to 0700, and both files are created 0600 before LMDB opens them (it keeps the
 * mode of an existing file; an empty data file is a new environment to it), and an existing
 * file from an older version is tightened.
 */
async function ownerOnly(path: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  for (const file of [path, `${path}-lock`]) {
    // 'a' creates without truncating a queue that is already there
    const handle = await openFile(file, 'a', 0o600);
    try {
      await handle.chmod(0o600);
    } finally {
      await handle.close();
    }
  }
}
