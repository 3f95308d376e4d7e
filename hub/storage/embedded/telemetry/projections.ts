import type { Database, RootDatabase } from 'lmdb';
import type {
  ActivationActionRow, ChangeOutcomeRow, ObservationEventRow, SkillActivationRow, SkillFeedbackIncidentRow, UsageRollupRow,
} from '../../../projections/rows.js';
import type {
  ActivationItem, GenerationInfo, ProjectionReader, ProjectionStore, ProjectionWriter, QueueItem, TimelineEntry, TimelineRange,
} from '../../telemetry-ports.js';

type Key = (string | number)[];
type RollupDims = Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'host' | 'triggerType'>;

/**
 * Projection sub-databases. Every key starts with the generation number, so a rebuild writes a
 * complete new generation next to the live one and the switch is one meta write. Key layouts:
 *   events, actions, changes, feedback, activations: [gen, account, id]
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
  actions: Database<ActivationActionRow, Key>;
  changes: Database<ChangeOutcomeRow, Key>;
  feedback: Database<SkillFeedbackIncidentRow, Key>;
  skillItems: Database<string, Key>;
  rollups: Database<UsageRollupRow, Key>;
  rollupSessions: Database<true, Key>;
  queue: Database<QueueItem, number>;
  meta: Database<unknown, string>;
}

const END = '\uffff';
const rollupKey = (gen: number, r: RollupDims): Key => [gen, r.packageId, r.skillId, r.day, r.accountId, r.version, r.host, r.triggerType];

function writer(dbs: ProjectionDbs, gen: number): ProjectionWriter {
  return {
    // noOverwrite: the put fails (false) when the id exists, so the dedupe check and the write are one operation
    insertEvent: (row) => dbs.events.putSync([gen, row.accountId, row.eventId], row, { noOverwrite: true }) as unknown as boolean,
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
    putAction: (row) => dbs.actions.putSync([gen, row.accountId, row.eventId], row),
    putChange: (row) => dbs.changes.putSync([gen, row.accountId, row.eventId], row),
    putFeedback: (row) => dbs.feedback.putSync([gen, row.accountId, row.eventId], row),
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

function reader(dbs: ProjectionDbs, gen: number): ProjectionReader {
  return {
    getEvent: (a, id) => dbs.events.get([gen, a, id]),
    getActivation: (a, id) => dbs.activations.get([gen, a, id]),
    getAction: (a, id) => dbs.actions.get([gen, a, id]),
    getChange: (a, id) => dbs.changes.get([gen, a, id]),
    getFeedback: (a, id) => dbs.feedback.get([gen, a, id]),
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
    allActions: () => values(dbs.actions, gen),
    allChanges: () => values(dbs.changes, gen),
    allFeedback: () => values(dbs.feedback, gen),
    allRollups: () => values(dbs.rollups, gen),
  };
}

const GENERATION_DBS = ['events', 'timeline', 'activations', 'actItems', 'coactive', 'actions', 'changes', 'feedback', 'skillItems', 'rollups', 'rollupSessions'] as const;

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
