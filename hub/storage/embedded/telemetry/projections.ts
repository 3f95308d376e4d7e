import { asBinary, type Database, type RootDatabase } from 'lmdb';
import { actionOf, changeOf, feedbackOf } from '../../../projections/facts.js';
import type { ObservationEventRow, SkillActivationRow, UsageRollupRow } from '../../../projections/rows.js';
import type {
  ActivationItem, GenerationInfo, ProjectionReader, ProjectionStore, ProjectionWriter, QueueItem, TimelineEntry, TimelineRange,
} from '../../telemetry-ports.js';

type Key = (string | number)[];
type RollupDims = Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'host' | 'triggerType'>;

/**
 * Projection sub-databases. Every key starts with the generation number, so a rebuild writes a
 * complete new generation next to the live one and the switch is one meta write. Key layouts:
 *   events, activations: [gen, account, id]   (actions, changes and feedback are derived from events on read)
 *   timeline:     [gen, account, repositoryKey, timeMs, eventId] -> kind   (per-repository time order)
 *   actItems:     [gen, account, activationId, timeMs, eventId] -> kind
 *   skillItems:   [gen, account, skillId, timeMs, eventId] -> kind
 *   coactive:     [gen, account, activationId] -> the activation ids seen active with it
 *   rollups:      [gen, package, skill, day, account, version, host, trigger]
 *   rollupSessions: rollup key + sessionKey
 */
export interface ProjectionDbs {
  events: Database<ObservationEventRow, Key>;
  timeline: Database<string, Key>;
  activations: Database<SkillActivationRow, Key>;
  actItems: Database<string, Key>;
  coactive: Database<string[], Key>;
  skillItems: Database<string, Key>;
  rollups: Database<UsageRollupRow, Key>;
  rollupSessions: Database<true, Key>;
  queue: Database<QueueItem, number>;
  meta: Database<unknown, string>;
}

const END = '\uffff';

/** lmdb's msgpack codec of a database (not in its type declarations). */
interface EventCodec {
  encoder: { encode(value: unknown): Uint8Array };
  decoder: { decode(bytes: Uint8Array): unknown };
}

const rollupKey = (gen: number, r: RollupDims): Key => [gen, r.packageId, r.skillId, r.day, r.accountId, r.version, r.host, r.triggerType];

function writer(dbs: ProjectionDbs, gen: number): ProjectionWriter {
  return {
    // noOverwrite: the put fails (false) when the id exists, so the dedupe check and the write are one operation
    insertEvent: (row, encoded) => dbs.events.putSync([gen, row.accountId, row.eventId], encoded ? (asBinary(encoded) as unknown as ObservationEventRow) : row, { noOverwrite: true }) as unknown as boolean,
    indexTimeline: (a, repo, e) => dbs.timeline.putSync([gen, a, repo, e.timeMs, e.eventId], e.kind),
    getActivation: (a, id) => dbs.activations.get([gen, a, id]),
    putActivation: (row) => dbs.activations.putSync([gen, row.accountId, row.activationId], row),
    linkActivationItem: (a, id, item) => dbs.actItems.putSync([gen, a, id, item.timeMs, item.eventId], item.kind),
    addCoactive(a, x, y) {
      const xs = dbs.coactive.get([gen, a, x]) ?? [];
      if (xs.includes(y)) return false;
      dbs.coactive.putSync([gen, a, x], [...xs, y].sort());
      dbs.coactive.putSync([gen, a, y], [...(dbs.coactive.get([gen, a, y]) ?? []), x].sort());
      return true;
    },
    coactive: (a, id) => dbs.coactive.get([gen, a, id]) ?? [],
    indexSkill: (a, skill, item) => dbs.skillItems.putSync([gen, a, skill, item.timeMs, item.eventId], item.kind),
    getRollup: (r) => dbs.rollups.get(rollupKey(gen, r)),
    putRollup: (row) => dbs.rollups.putSync(rollupKey(gen, row), row),
    markRollupSession(r, session) {
      const key = [...rollupKey(gen, r), session];
      if (dbs.rollupSessions.doesExist(key)) return false;
      dbs.rollupSessions.putSync(key, true);
      return true;
    },
  };
}

function items(db: Database<string, Key>, prefix: Key, fromMs: number, toMs: number, limit: number): ActivationItem[] {
  const out: ActivationItem[] = [];
  for (const { key, value } of db.getRange({ start: [...prefix, fromMs], end: [...prefix, toMs, END], limit })) {
    const k = key as Key;
    out.push({ timeMs: k[prefix.length] as number, eventId: k[prefix.length + 1] as string, kind: value });
  }
  return out;
}

function* values<V>(db: Database<V, Key>, gen: number): Iterable<V> {
  for (const { value } of db.getRange({ start: [gen], end: [gen + 1] })) yield value;
}

function* derived<T>(events: Iterable<ObservationEventRow>, of: (e: ObservationEventRow) => T | undefined): Iterable<T> {
  for (const e of events) {
    const row = of(e);
    if (row) yield row;
  }
}

function derivedOne<T>(dbs: ProjectionDbs, gen: number, accountId: string, eventId: string, of: (e: ObservationEventRow) => T | undefined): T | undefined {
  const e = dbs.events.get([gen, accountId, eventId]);
  return e && of(e);
}

function reader(dbs: ProjectionDbs, gen: number): ProjectionReader {
  return {
    getEvent: (a, id) => dbs.events.get([gen, a, id]),
    getActivation: (a, id) => dbs.activations.get([gen, a, id]),
    getAction: (a, id) => derivedOne(dbs, gen, a, id, actionOf),
    getChange: (a, id) => derivedOne(dbs, gen, a, id, changeOf),
    getFeedback: (a, id) => derivedOne(dbs, gen, a, id, feedbackOf),
    timeline(a, repo, range: TimelineRange): TimelineEntry[] {
      const prefix = [gen, a, repo];
      const start = range.before ? [...prefix, range.before.timeMs, range.before.eventId] : [...prefix, range.toMs, END];
      const out: TimelineEntry[] = [];
      for (const { key, value } of dbs.timeline.getRange({ start, end: [...prefix, range.fromMs], reverse: true, exclusiveStart: !!range.before, limit: range.limit })) {
        const k = key as Key;
        out.push({ timeMs: k[3] as number, eventId: k[4] as string, kind: value });
      }
      return out;
    },
    countTimeline: (a, repo, fromMs, toMs, cap) => dbs.timeline.getKeysCount({ start: [gen, a, repo, fromMs], end: [gen, a, repo, toMs, END], limit: cap }),
    activationItems: (a, id, limit) => items(dbs.actItems, [gen, a, id], 0, Number.MAX_SAFE_INTEGER, limit),
    skillItems: (a, skill, fromMs, toMs, limit) => items(dbs.skillItems, [gen, a, skill], fromMs, toMs, limit),
    rollups(pkg, skill, fromDay, toDay) {
      const out: UsageRollupRow[] = [];
      const prefix = skill === undefined ? [gen, pkg] : [gen, pkg, skill];
      for (const { value } of dbs.rollups.getRange({ start: prefix, end: [...prefix, END] })) {
        if (value.day >= fromDay && value.day <= toDay) out.push(value);
      }
      return out;
    },
    allEvents: () => values(dbs.events, gen),
    allActivations: () => values(dbs.activations, gen),
    allActions: () => derived(values(dbs.events, gen), actionOf),
    allChanges: () => derived(values(dbs.events, gen), changeOf),
    allFeedback: () => derived(values(dbs.events, gen), feedbackOf),
    allRollups: () => values(dbs.rollups, gen),
  };
}

const GENERATION_DBS = ['events', 'timeline', 'activations', 'actItems', 'coactive', 'skillItems', 'rollups', 'rollupSessions'] as const;

export class LmdbProjections implements ProjectionStore {
  constructor(
    private readonly root: RootDatabase,
    private readonly dbs: ProjectionDbs,
  ) {}

  active() {
    return this.dbs.meta.get('activeGeneration') as GenerationInfo | undefined;
  }

  async setActive(info: GenerationInfo) {
    await this.root.transaction(() => {
      this.dbs.meta.putSync('activeGeneration', info);
      if (info.generation > this.lastGeneration()) this.dbs.meta.putSync('lastGeneration', info.generation);
    });
  }

  lastGeneration() {
    return (this.dbs.meta.get('lastGeneration') as number | undefined) ?? 0;
  }

  reader(generation: number) {
    return reader(this.dbs, generation);
  }

  write<T>(generation: number, fn: (w: ProjectionWriter) => T, ack: readonly number[] = []): Promise<T> {
    // puts go straight into the write transaction (putSync: no per-put async bookkeeping); the
    // commit and its disk flush happen on lmdb's write thread, off the event loop
    return this.root.transaction(() => {
      if (generation > this.lastGeneration()) this.dbs.meta.putSync('lastGeneration', generation);
      const result = fn(writer(this.dbs, generation));
      for (const seq of ack) this.dbs.queue.removeSync(seq);
      return result;
    });
  }

  encodeEvent(row: ObservationEventRow): Uint8Array {
    // the events store's msgpack encoder with its shared structures (new structures are saved to
    // the database at once, so a row encoded here decodes anywhere); a copy, not the encoder's buffer
    return new Uint8Array((this.dbs.events as unknown as EventCodec).encoder.encode(row));
  }

  decodeEvent(bytes: Uint8Array): ObservationEventRow {
    // structures this thread has not seen yet are read from the database by the decoder
    return (this.dbs.events as unknown as EventCodec).decoder.decode(bytes) as ObservationEventRow;
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
