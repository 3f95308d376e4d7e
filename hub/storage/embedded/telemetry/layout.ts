import type { Database } from 'lmdb';

/**
 * Key layouts of projection generations, fixed when a generation is created.
 *
 * Layout 1 (every generation written before layouts existed) starts the keys of the events,
 * timeline, activation, item and co-active databases with the account id string, and stores
 * events as msgpack rows. Layout 2 puts a small per-account number there instead — LMDB compares
 * keys byte by byte from the front, and a 38-character account id in front of every key was about
 * a third of the normalizer's write cost — stores events in the compact row encoding of
 * event-codec.ts (tm-events-v2) and activations as JSON (tm-activations-v2). Layout 3 is layout 2
 * with events deduplicated per device: the event key component (and the event's entries in the
 * timeline and skill indexes) is `<event id> <device id>` instead of the bare id (see
 * projection-access.ts `eventKeyOf`). Layout 4 is layout 3 with a Git AI checkpoint's records
 * indexed under their own key (`~git.ai.checkpoint.record <device> <checkpoint id>`), apart from
 * the outcomes and change summaries naming the checkpoint, so the checkpoint join finds the record
 * with one read (projection-access.ts `checkpointIndex`). A generation's layout is recorded in tm-meta as `layout:<gen>`;
 * one without the record predates layouts and stays layout 1, so an existing hub keeps reading
 * and writing its live generation as before and its next rebuild writes the current layout.
 */
export type Layout = 1 | 2 | 3 | 4;

export const CURRENT_LAYOUT: Layout = 4;

/** The layout of each generation (cached: a created generation never changes layout). */
export class GenerationLayouts {
  private readonly known = new Map<number, Layout>();

  constructor(private readonly meta: Database<unknown, string>) {}

  /** The layout of `generation`; one not created yet (after `lastGeneration`) will get the current layout. */
  of(generation: number, lastGeneration: number): Layout {
    const hit = this.known.get(generation);
    if (hit !== undefined) return hit;
    const marked = this.meta.get(`layout:${generation}`) as Layout | undefined;
    if (marked === undefined && generation > lastGeneration) return CURRENT_LAYOUT;
    const layout = marked ?? 1;
    this.known.set(generation, layout);
    return layout;
  }

  /** Records the current layout for a generation being created (inside its first write transaction). */
  mark(generation: number): void {
    this.meta.putSync(`layout:${generation}`, CURRENT_LAYOUT);
  }
}

/**
 * The small numbers layout-2 keys use for accounts, assigned on an account's first normalized
 * event and kept in tm-meta (`accountNo:<id>`; they are never reused or removed). 0 is never
 * assigned: a read for an account without a number finds nothing.
 */
export class AccountNumbers {
  private readonly known = new Map<string, number>();

  constructor(private readonly meta: Database<unknown, string>) {}

  /** The account's number for reads, 0 when it has none yet. */
  lookup(accountId: string): number {
    const hit = this.known.get(accountId);
    if (hit !== undefined) return hit;
    const stored = this.meta.get(`accountNo:${accountId}`) as number | undefined;
    if (stored === undefined) return 0;
    this.known.set(accountId, stored);
    return stored;
  }

  /**
   * Inside a write transaction: the account's number, assigned now when it has none. Numbers
   * assigned by this transaction stay in `assigned` until it commits (see `committed`), so an
   * aborted transaction leaves nothing behind in memory either.
   */
  assign(accountId: string, assigned: Map<string, number>): number {
    const n = this.known.get(accountId) ?? assigned.get(accountId);
    if (n !== undefined) return n;
    const stored = this.meta.get(`accountNo:${accountId}`) as number | undefined;
    if (stored !== undefined) {
      // not assigned by this transaction, so committed by an earlier one
      this.known.set(accountId, stored);
      return stored;
    }
    const next = ((this.meta.get('accountNoLast') as number | undefined) ?? 0) + 1;
    this.meta.putSync('accountNoLast', next);
    this.meta.putSync(`accountNo:${accountId}`, next);
    assigned.set(accountId, next);
    return next;
  }

  /** The transaction that assigned these numbers committed. */
  committed(assigned: Map<string, number>): void {
    for (const [accountId, n] of assigned) this.known.set(accountId, n);
  }
}
