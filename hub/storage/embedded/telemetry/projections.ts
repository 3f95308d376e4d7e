import type { Database, RootDatabase } from 'lmdb';
import type { ObservationEventRow } from '../../../projections/rows.js';
import type { GenerationInfo, ProjectionStore, ProjectionWriter } from '../../telemetry-ports.js';
import { decodeEventHead, decodeEventRow, encodeEventRows } from './event-codec.js';
import { AccountNumbers, GenerationLayouts, type Layout } from './layout.js';
import { reader, writer, type AccountKey, type Key, type ProjectionDbs } from './projection-access.js';

export type { ProjectionDbs } from './projection-access.js';

const GENERATION_DBS = ['events', 'eventsV2', 'timeline', 'activations', 'activationsV2', 'actItems', 'coactive', 'skillItems', 'rollups', 'rollupSessions', 'conflicts'] as const;

const byId: AccountKey = (accountId) => accountId;

/** `key`, remembering the last account asked for (a batch is one account's, and every write asks). */
function lastAccount(key: AccountKey): AccountKey {
  let last: string | undefined;
  let lastKey: string | number = 0;
  return (accountId) => {
    if (accountId !== last) {
      lastKey = key(accountId);
      last = accountId;
    }
    return lastKey;
  };
}

/**
 * The projection generations in the hub's LMDB environment (key layouts in projection-access.ts,
 * layout versions in layout.ts).
 */
export class LmdbProjections implements ProjectionStore {
  private readonly layouts: GenerationLayouts;
  private readonly accounts: AccountNumbers;

  constructor(
    private readonly root: RootDatabase,
    private readonly dbs: ProjectionDbs,
  ) {
    this.layouts = new GenerationLayouts(dbs.meta);
    this.accounts = new AccountNumbers(dbs.meta);
  }

  active() {
    return this.dbs.meta.get('activeGeneration') as GenerationInfo | undefined;
  }

  async setActive(info: GenerationInfo) {
    await this.root.transaction(() => {
      this.dbs.meta.putSync('activeGeneration', info);
      this.created(info.generation);
    });
  }

  lastGeneration() {
    return (this.dbs.meta.get('lastGeneration') as number | undefined) ?? 0;
  }

  /** Inside a write transaction: records `generation` (and its layout) when it is new. */
  private created(generation: number): void {
    if (generation <= this.lastGeneration()) return;
    this.dbs.meta.putSync('lastGeneration', generation);
    this.layouts.mark(generation);
  }

  private layoutOf(generation: number): Layout {
    return this.layouts.of(generation, this.lastGeneration());
  }

  reader(generation: number) {
    const layout = this.layoutOf(generation);
    return reader(this.dbs, generation, layout, layout >= 2 ? lastAccount((a) => this.accounts.lookup(a)) : byId);
  }

  async write<T>(generation: number, fn: (w: ProjectionWriter) => T, ack: readonly number[] = []): Promise<T> {
    const assigned = new Map<string, number>();
    // puts go straight into the write transaction (putSync: no per-put async bookkeeping); the
    // commit and its disk flush happen on lmdb's write thread, off the event loop
    const result = await this.root.transaction(() => {
      this.created(generation);
      const layout = this.layoutOf(generation);
      const out = fn(writer(this.dbs, generation, layout, layout >= 2 ? lastAccount((a) => this.accounts.assign(a, assigned)) : byId));
      for (const seq of ack) this.dbs.queue.removeSync(seq);
      return out;
    });
    this.accounts.committed(assigned);
    return result;
  }

  encodeEvents(rows: readonly ObservationEventRow[]) {
    return encodeEventRows(rows);
  }

  decodeEvent(bytes: Uint8Array): ObservationEventRow {
    return decodeEventRow(bytes, true);
  }

  decodeEventHead(bytes: Uint8Array, wanted?: (eventName: string) => boolean) {
    return decodeEventHead(bytes, wanted);
  }

  async drop(generation: number): Promise<void> {
    for (const name of GENERATION_DBS) {
      const db = this.dbs[name] as Database<unknown, Key>;
      for (;;) {
        const keys = [...db.getKeys({ start: [generation], end: [generation + 1], limit: 10_000 })];
        if (keys.length === 0) break;
        await this.root.transaction(() => {
          for (const k of keys) db.removeSync(k);
        });
      }
    }
  }
}
