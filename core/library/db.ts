import { existsSync } from 'node:fs';
import type { RootDatabase } from 'lmdb';
import { SfError } from '../errors/index.js';
import { assertLocalDataDir } from '../fs/filesystem-kind.js';
import { ensureSfHome } from './home.js';
import type { SfPaths } from './paths.js';
import { recordScopeKey, type InstallationRecord, type IntentRecord } from './types.js';

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

export class Library {
  private constructor(private readonly db: RootDatabase<unknown, string>) {}

  /**
   * Opens (creating when `create`) the library. Returns null when it does not exist and `create`
   * is false, so read-only commands on a fresh machine create nothing. `readOnly` (for commands
   * that only read: list, doctor without --fix) also works where $SF_HOME cannot be written, such
   * as a read-only mount; writing through such a library throws.
   */
  static async open(paths: SfPaths, options: { create: boolean; readOnly?: boolean }): Promise<Library | null> {
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
    const lib = new Library(db);
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

  listInstallations(): InstallationRecord[] {
    const out: InstallationRecord[] = [];
    for (const { value } of this.db.getRange({ start: INST, end: prefixEnd(INST) })) out.push(value as InstallationRecord);
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
    this.db.transactionSync(() => {
      for (const [scope, id] of change.delete ?? []) this.db.removeSync(instKey(scope, id));
      for (const rec of change.put ?? []) this.db.putSync(instKey(recordScopeKey(rec), rec.skitId), rec);
      if (change.putIntent) this.db.putSync(intentKey(change.putIntent.id), change.putIntent);
      if (change.deleteIntent) this.db.removeSync(intentKey(change.deleteIntent));
    }, options.flush === false ? NO_FLUSH : undefined);
  }

  /**
   * Writes `intent` only if no other intent is recorded, in one write transaction (LMDB has a
   * single writer, so the check and the write cannot interleave with another process). Returns
   * the intents that were in the way, or [] when `intent` was written.
   *
   * The claim is visible to other processes at once but not flushed to disk by itself: until the
   * plan is recorded (a flushed commit, which flushes the claim too) nothing on disk has changed,
   * so a claim lost to a power cut loses nothing.
   */
  claim(intent: IntentRecord): IntentRecord[] {
    return this.db.transactionSync(() => {
      const existing = this.listIntents().filter((i) => i.id !== intent.id);
      if (existing.length === 0) this.db.putSync(intentKey(intent.id), intent);
      return existing;
    }, NO_FLUSH);
  }

  /**
   * Makes this process the holder of the interrupted intent `stale` (its pid and start time are
   * replaced) if it is still recorded exactly as read, in one write transaction: of several
   * commands that find the same interrupted intent, exactly one recovers it, and the others see a
   * live holder and wait. Undefined when another process took it over or finished it first.
   */
  takeOver<T extends IntentRecord>(stale: T, pid: number, startedAt: string): T | undefined {
    return this.db.transactionSync(() => {
      const current = this.db.get(intentKey(stale.id)) as IntentRecord | undefined;
      if (!current || current.pid !== stale.pid || current.startedAt !== stale.startedAt) return undefined;
      const mine = { ...(current as T), pid, startedAt };
      this.db.putSync(intentKey(stale.id), mine);
      return mine;
    });
  }
}
