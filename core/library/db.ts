import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { diskFullAt, SfError } from '../errors/index.js';
import { assertLocalDataDir } from '../fs/filesystem-kind.js';
import { ensureSfHome } from './home.js';
import type { SfPaths } from './paths.js';
import { recordScopeKey, type InstallationRecord, type IntentRecord } from './types.js';
import { trace } from '../trace/startup.js';

/**
 * The canonical library: one LMDB environment ($SF_HOME/library.lmdb). Keys are strings:
 *   inst:<scope key>\0<skit id>  -> InstallationRecord
 *   intent:<id>                  -> IntentRecord (the journal of a mutation in progress)
 *   meta:schema                  -> schema version
 * lmdb is imported lazily so commands that never touch the library start fast.
 */

/**
 * lmdb transaction flags: abortable, committed before returning, but not flushed to disk. For
 * writes that need no durability of their own (the next flushed commit flushes them too, and
 * losing them to a power cut is harmless): see `claim`.
 */
const NO_FLUSH = 0x1 | 0x2 | 0x10000;

const INST = 'inst:';
const INTENT = 'intent:';
const SCHEMA_VERSION = 1;

const instKey = (scopeKey: string, skitId: string) => `${INST}${scopeKey}\u0000${skitId}`;
const intentKey = (id: string) => `${INTENT}${id}`;
/** The first key after every key that starts with `prefix`. */
const prefixEnd = (prefix: string) => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** One atomic change of the library: applied in a single LMDB write transaction. */
export interface LibraryCommit {
  put?: InstallationRecord[];
  /** [scope key, skit id] of installations to delete */
  delete?: [string, string][];
  putIntent?: IntentRecord;
  deleteIntent?: string;
}

/**
 * The installations as one process last read or wrote them, shared by the Library handles of a
 * pass over many installations (`sf skit update --all`) so that the pass reads the library once.
 * It is trusted only while no one else wrote: LMDB numbers its write transactions one after the
 * other, so when a write of ours has the number right after the last one the cache reflects,
 * nothing was written in between; any other number (another sf process, or a write this class
 * did not see) drops it and the next list reads the library again.
 */
export class InstallationCache {
  /** keys and records in key order, as the library lists them */
  private entries: { key: string; record: InstallationRecord }[] | null = null;
  private at = new Map<string, number>();
  /** the write transaction whose state `entries` holds */
  private txn = -1;

  /** The cached installations, or undefined when they must be read. */
  list(): InstallationRecord[] | undefined {
    return this.entries?.map((e) => e.record);
  }

  /** Holds `entries`, as read when `txn` was the last write transaction. */
  fill(txn: number, entries: { key: string; record: InstallationRecord }[]): void {
    this.entries = entries;
    this.at = new Map(entries.map((e, i) => [e.key, i]));
    this.txn = txn;
  }

  /** Follows write transaction `txn` of ours, which put and deleted these installations. */
  wrote(txn: number, put: { key: string; record: InstallationRecord }[], deleted: string[]): void {
    const follows = txn === this.txn + 1;
    this.txn = txn;
    if (!this.entries) return;
    if (!follows) return this.drop();
    // in the order the transaction applied them: deletes, then puts
    if (deleted.some((k) => this.at.has(k))) this.fill(txn, this.entries.filter((e) => !deleted.includes(e.key)));
    // a new key would have to go where LMDB sorts it: read again rather than guess the order
    if (put.some((p) => !this.at.has(p.key))) return this.drop();
    for (const p of put) this.entries![this.at.get(p.key)!] = p;
  }

  drop(): void {
    this.entries = null;
    this.at.clear();
  }
}

export class Library {
  private constructor(
    private readonly db: RootDatabase<unknown, string>,
    private readonly cache?: InstallationCache,
    /** $SF_HOME/library.lmdb, for errors */
    private readonly path = '',
  ) {}

  /**
   * Opens (creating when `create`) the library. Returns null when it does not exist and `create`
   * is false, so read-only commands on a fresh machine create nothing. `readOnly` (for commands
   * that only read: list, doctor without --fix) also works where $SF_HOME cannot be written, such
   * as a read-only mount; writing through such a library throws.
   */
  static async open(paths: SfPaths, options: { create: boolean; readOnly?: boolean; cache?: InstallationCache }): Promise<Library | null> {
    const readOnly = options.readOnly === true && !options.create;
    if (!options.create && !existsSync(paths.library)) return null;
    if (!readOnly) {
      // reading a library on a network filesystem is allowed (doctor reports it); writing is not
      assertLocalDataDir(paths.home, 'the library ($SF_HOME)');
      ensureSfHome(paths.home);
    }
    // msgpackr's optional native string decoder costs more to locate and load than it saves on
    // records this small; this only takes effect if nothing in the process loaded msgpackr yet
    process.env.MSGPACKR_NATIVE_ACCELERATION_DISABLED ??= 'true';
    const { open } = await import('lmdb');
    let db: RootDatabase<unknown, string>;
    try {
      // overlappingSync off: a commit returns only once it is flushed, so a power cut after a
      // command reported success cannot lose it (reliability-anchors.md §4)
      db = open<unknown, string>({ path: paths.library, noSubdir: true, encoding: 'msgpack', overlappingSync: false, compression: false, ...(readOnly ? { readOnly: true } : {}) });
    } catch (e) {
      throw new SfError('SF_E_LIBRARY', `could not open the library at ${paths.library}: ${(e as Error).message}`, {
        location: { file: paths.library },
        hint: readOnly ? 'check that $SF_HOME is readable and on a local filesystem' : 'check that $SF_HOME is on a local filesystem and writable (`sf skit list` still reads a read-only one)',
        cause: e,
      });
    }
    // a cache is read and kept inside write transactions, which a read-only library cannot start
    const lib = new Library(db, readOnly ? undefined : options.cache, paths.library);
    const version = db.get('meta:schema');
    // not flushed on its own: re-created on the next open if a power cut loses it
    if (version === undefined && options.create) db.transactionSync(() => db.putSync('meta:schema', SCHEMA_VERSION), NO_FLUSH);
    else if (version !== undefined && version !== SCHEMA_VERSION) {
      await db.close();
      throw new SfError('SF_E_LIBRARY', `the library at ${paths.library} has schema version ${String(version)}; this sf understands ${SCHEMA_VERSION}`, {
        hint: 'upgrade sf to a version that knows this library format',
      });
    }
    return lib;
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  /** Every installation, in key order (from the cache when one is attached and still valid). */
  listInstallations(): InstallationRecord[] {
    const cached = this.cache?.list();
    if (cached) return cached;
    if (!this.cache) return this.readInstallations().map((e) => e.record);
    // read in a write transaction (which writes nothing): its number says which state was read
    const [txn, entries] = this.db.transactionSync(() => [this.db.getWriteTxnId() - 1, this.readInstallations()] as const);
    this.cache.fill(txn, entries);
    return entries.map((e) => e.record);
  }

  private readInstallations(): { key: string; record: InstallationRecord }[] {
    const out: { key: string; record: InstallationRecord }[] = [];
    for (const { key, value } of this.db.getRange({ start: INST, end: prefixEnd(INST) })) out.push({ key, record: value as InstallationRecord });
    trace(`library read: ${out.length} installations`);
    return out;
  }

  getInstallation(scopeKey: string, skitId: string): InstallationRecord | undefined {
    return this.db.get(instKey(scopeKey, skitId)) as InstallationRecord | undefined;
  }

  listIntents(): IntentRecord[] {
    const out: IntentRecord[] = [];
    for (const { value } of this.db.getRange({ start: INTENT, end: prefixEnd(INTENT) })) out.push(value as IntentRecord);
    return out;
  }

  getIntent(id: string): IntentRecord | undefined {
    return this.db.get(intentKey(id)) as IntentRecord | undefined;
  }

  /**
   * Applies `change` in one durable write transaction: all of it or nothing. `flush: false` for a
   * record whose loss to a power cut is harmless (it survives the process being killed).
   */
  commit(change: LibraryCommit, options: { flush?: boolean } = {}): void {
    const deleted = (change.delete ?? []).map(([scope, id]) => instKey(scope, id));
    const put = (change.put ?? []).map((rec) => ({ key: instKey(recordScopeKey(rec), rec.skitId), record: rec }));
    this.write(() => {
      for (const key of deleted) this.db.removeSync(key);
      for (const p of put) this.db.putSync(p.key, p.record);
      if (change.putIntent) this.db.putSync(intentKey(change.putIntent.id), change.putIntent);
      if (change.deleteIntent) this.db.removeSync(intentKey(change.deleteIntent));
      // the cache holds what a read would return (decoded, as stored), not the caller's objects
      return { wrote: true, put: this.cache ? put.map((p) => ({ key: p.key, record: this.db.get(p.key) as InstallationRecord })) : [], deleted };
    }, options.flush === false ? NO_FLUSH : undefined);
  }

  /**
   * Runs `body` in one write transaction and, once that committed, tells the cache what it
   * changed (nothing, when `wrote` is false: LMDB then commits no transaction at all).
   */
  private write<T>(body: () => T & { wrote: boolean; put?: { key: string; record: InstallationRecord }[]; deleted?: string[] }, flags?: number): T {
    let txn: number;
    let out: T & { wrote: boolean; put?: { key: string; record: InstallationRecord }[]; deleted?: string[] };
    try {
      [txn, out] = this.db.transactionSync(() => [this.db.getWriteTxnId(), body()] as const, flags);
    } catch (e) {
      // lmdb's full-disk error names no file: the library is in $SF_HOME, maybe not on the project's filesystem
      throw diskFullAt(e, `$SF_HOME (${dirname(this.path)})`, this.path) ?? e;
    }
    if (out.wrote) this.cache?.wrote(txn, out.put ?? [], out.deleted ?? []);
    return out;
  }

  /**
   * Writes `intent` only if no other intent is recorded (except those `ignore` lets it go ahead
   * around), in one write transaction (LMDB has a single writer, so the check and the write cannot
   * interleave with another process). Returns the intents that were in the way, or [] when
   * `intent` was written.
   *
   * The claim is visible to other processes at once but not flushed to disk by itself: until the
   * plan is recorded (a flushed commit, which flushes the claim too) nothing on disk has changed,
   * so a claim lost to a power cut loses nothing.
   */
  claim(intent: IntentRecord, ignore?: (other: IntentRecord) => boolean): IntentRecord[] {
    return this.write(() => {
      const existing = this.listIntents().filter((i) => i.id !== intent.id && !ignore?.(i));
      if (existing.length === 0) this.db.putSync(intentKey(intent.id), intent);
      return { wrote: existing.length === 0, existing };
    }, NO_FLUSH).existing;
  }

  /**
   * Makes this process the holder of the interrupted intent `stale` (its pid and start time are
   * replaced) if it is still recorded exactly as read, in one write transaction: of several
   * commands that find the same interrupted intent, exactly one recovers it, and the others see a
   * live holder and wait. Undefined when another process took it over or finished it first.
   */
  takeOver<T extends IntentRecord>(stale: T, pid: number, startedAt: string): T | undefined {
    return this.write(() => {
      const current = this.db.get(intentKey(stale.id)) as IntentRecord | undefined;
      if (!current || current.pid !== stale.pid || current.startedAt !== stale.startedAt) return { wrote: false, mine: undefined };
      const mine = { ...(current as T), pid, startedAt };
      this.db.putSync(intentKey(stale.id), mine);
      return { wrote: true, mine };
    }).mine;
  }
}
