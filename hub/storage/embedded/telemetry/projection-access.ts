import type { Database } from 'lmdb';
import { actionOf, changeOf, checkpointLookup, feedbackOf, GIT_AI_CHECKPOINT } from '../../../projections/facts.js';
import { ZERO_COUNTERS, type ObservationEventRow, type SkillActivationRow, type UsageRollupRow } from '../../../projections/rows.js';
import { RECENT_CONFLICTS, type ActivationItem, type DeviceConflicts, type ProjectionReader, type ProjectionWriter, type QueueItem, type TimelineEntry, type TimelineRange } from '../../telemetry-ports.js';
import { decodeEventRow, encodeEventRow } from './event-codec.js';
import type { Layout } from './layout.js';

export type Key = (string | number)[];
type RollupDims = Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'artifactHash' | 'host' | 'triggerType'>;

/**
 * Projection sub-databases. Every key starts with the generation number, so a rebuild writes a
 * complete new generation next to the live one and the switch is one meta write. `acct` is the
 * account id (layout 1) or the account's number (layouts 2 to 4, see layout.ts). Key layouts:
 *   events, eventsV2: [gen, acct, ev]   (actions, changes and feedback are derived from events on read)
 *   activations (layout 1), activationsV2 (layouts 2 to 4): [gen, acct, act]
 *   timeline:     [gen, acct, repositoryKey, timeMs, ev] -> kind   (per-repository time order)
 *   actItems:     [gen, acct, act, timeMs, eventId] -> kind   (`act` names the device, whose events they are)
 *   skillItems:   [gen, acct, skillId, timeMs, ev] -> kind
 *   actItems also holds the checkpoint index: [gen, acct, cpKey, timeMs, eventId] -> kind (`cpKey` names the device too),
 *     the change summaries and outcomes naming a checkpoint; from layout 4 its records under their own
 *     [gen, acct, cpRecordKey, timeMs, eventId] (before, under cpKey among the rest)
 *   coactive:     [gen, acct, act] -> the activation ids (of the same device) seen active with it
 *   rollups:      [gen, package, skill, day, account, version, artifactHash, host, trigger]
 *   rollupSessions: rollup key + sessionKey
 *   conflicts:    [gen, acct, 'device', deviceId] -> a device's conflicting duplicates (count and latest),
 *                 [gen, acct, 'copy', deviceId, eventId, digest] -> true (each conflicting copy recorded once)
 */
export interface ProjectionDbs {
  /** layout-1 events: msgpack rows */
  events: Database<ObservationEventRow, Key>;
  /** layout-2 events: event-codec.ts rows */
  eventsV2: Database<Buffer, Key>;
  timeline: Database<string, Key>;
  /** layout-1 activations: msgpack rows */
  activations: Database<SkillActivationRow, Key>;
  /** layout-2 activations: JSON (about twice as fast as msgpack records for these nested rows) */
  activationsV2: Database<SkillActivationRow, Key>;
  actItems: Database<string, Key>;
  coactive: Database<string[], Key>;
  skillItems: Database<string, Key>;
  rollups: Database<UsageRollupRow, Key>;
  /** activations per session in a rollup row (`true` in rows written before counts: 1) */
  rollupSessions: Database<number | true, Key>;
  /** conflicting duplicates (ProjectionWriter.recordConflict) */
  conflicts: Database<unknown, Key>;
  queue: Database<QueueItem, number>;
  meta: Database<unknown, string>;
}

/** The key component of an account in a generation (its id, or its number). */
export type AccountKey = (accountId: string) => string | number;

const END = '\uffff';

/**
 * `act`, the key component of an activation: `<activation id> <device id>` (activation ids are
 * unique per device only; a space never occurs in either, see values.ts safeId). Generations
 * written before activations were scoped by device keyed them by the bare activation id; reads
 * fall back to it, so such a generation stays readable until its rebuild.
 */
const actKey = (activationId: string, deviceId: string) => `${activationId} ${deviceId}`;

/**
 * `ev`, the key component of an event: from layout 3 `<event id> <device id>` (events are
 * deduplicated per device, as activations are keyed; a space never occurs in either), in layouts
 * 1 and 2, which deduplicated per account, the bare event id. Without a device it is the bare id,
 * which sorts before every device's key of that id (a read position, never a stored key from layout 3 on).
 */
type EventKey = (eventId: string, deviceId: string | undefined) => string;
const eventKeyOf = (layout: Layout): EventKey => (layout >= 3 ? (id, device) => (device === undefined ? id : `${id} ${device}`) : (id) => id);

/** The event id and device of an `ev` key component (no device in layouts 1 and 2). */
function splitEventKey(ev: string): { eventId: string; deviceId?: string } {
  const space = ev.indexOf(' ');
  return space < 0 ? { eventId: ev } : { eventId: ev.slice(0, space), deviceId: ev.slice(space + 1) };
}

/**
 * The key component of a Git AI checkpoint of a device in actItems: `~git.ai.checkpoint <device> <checkpoint id>`.
 * Two spaces, so it is never an `act` key (ids never contain a space, values.ts safeId).
 */
const checkpointKey = (deviceId: string, checkpointId: string) => `~git.ai.checkpoint ${deviceId} ${checkpointId}`;

/**
 * The key component of a checkpoint's git.ai.checkpoint.created records in layout 4: the join reads
 * the earliest with one positioned read, however many outcomes name the checkpoint. Layouts 1 to 3
 * keep records under `checkpointKey` with the rest (see `checkpointIndex`).
 */
const checkpointRecordKey = (deviceId: string, checkpointId: string) => `~git.ai.checkpoint.record ${deviceId} ${checkpointId}`;

const rollupKey = (gen: number, r: RollupDims): Key => [gen, r.packageId, r.skillId, r.day, r.accountId, r.version, r.artifactHash, r.host, r.triggerType];

const isEmptyRollup = (row: UsageRollupRow): boolean => (Object.keys(ZERO_COUNTERS) as (keyof typeof ZERO_COUNTERS)[]).every((k) => row[k] === 0);

/** The row without its undefined fields (rows carry every field; msgpack would keep the undefined ones). */
function definedFields(row: ObservationEventRow): ObservationEventRow {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (v !== undefined) out[k] = v;
  return out as unknown as ObservationEventRow;
}

/** The writes of one transaction against generation `gen`. */
export function writer(dbs: ProjectionDbs, gen: number, layout: Layout, acct: AccountKey): ProjectionWriter {
  const ev = eventKeyOf(layout);
  // noOverwrite: the put fails (false) when the id exists, so the dedupe check and the write are one operation
  const insertEvent: ProjectionWriter['insertEvent'] =
    layout >= 2
      ? (row, encoded) => dbs.eventsV2.putSync([gen, acct(row.accountId), ev(row.eventId, row.deviceId)], (encoded ?? encodeEventRow(row)) as Buffer, { noOverwrite: true }) as unknown as boolean
      : (row, encoded) => dbs.events.putSync([gen, row.accountId, row.eventId], definedFields(encoded ? decodeEventRow(encoded) : row), { noOverwrite: true }) as unknown as boolean;
  const activations = layout >= 2 ? dbs.activationsV2 : dbs.activations;
  const getEvent = eventGetter(dbs, gen, layout, acct);
  return {
    insertEvent,
    storedEvent: (a, device, id) => getEvent(a, id, device),
    recordConflict(c) {
      const k = acct(c.accountId);
      const copy = [gen, k, 'copy', c.deviceId, c.eventId, c.digest];
      if (dbs.conflicts.doesExist(copy)) return false;
      dbs.conflicts.putSync(copy, true);
      const key = [gen, k, 'device', c.deviceId];
      const prev = dbs.conflicts.get(key) as Omit<DeviceConflicts, 'deviceId'> | undefined;
      const item = { eventId: c.eventId, eventName: c.eventName, time: c.time, rawBatchId: c.rawBatchId, keptRawBatchId: c.keptRawBatchId };
      dbs.conflicts.putSync(key, { count: (prev?.count ?? 0) + 1, recent: [item, ...(prev?.recent ?? [])].slice(0, RECENT_CONFLICTS) });
      return true;
    },
    indexTimeline: (a, repo, e) => dbs.timeline.putSync([gen, acct(a), repo, e.timeMs, ev(e.eventId, e.deviceId)], e.kind),
    getActivation: (a, device, id) => activations.get([gen, acct(a), actKey(id, device)]),
    putActivation: (row) => activations.putSync([gen, acct(row.accountId), actKey(row.activationId, row.deviceId)], row),
    linkActivationItem: (a, device, id, item) => dbs.actItems.putSync([gen, acct(a), actKey(id, device), item.timeMs, item.eventId], item.kind),
    linkedEvents(a, device, id, names) {
      const out: ObservationEventRow[] = [];
      for (const item of items(dbs.actItems, [gen, acct(a), actKey(id, device)], 0, Number.MAX_SAFE_INTEGER, 10_000)) {
        if (!names.has(item.kind)) continue;
        const row = getEvent(a, item.eventId, device);
        if (row) out.push(row);
      }
      return out;
    },
    addCoactive(a, device, x, y) {
      const k = acct(a);
      const [kx, ky] = [actKey(x, device), actKey(y, device)];
      const xs = dbs.coactive.get([gen, k, kx]) ?? [];
      if (xs.includes(y)) return false;
      dbs.coactive.putSync([gen, k, kx], [...xs, y].sort());
      dbs.coactive.putSync([gen, k, ky], [...(dbs.coactive.get([gen, k, ky]) ?? []), x].sort());
      return true;
    },
    coactive: (a, device, id) => dbs.coactive.get([gen, acct(a), actKey(id, device)]) ?? [],
    indexSkill: (a, skill, item) => dbs.skillItems.putSync([gen, acct(a), skill, item.timeMs, ev(item.eventId, item.deviceId)], item.kind),
    // the device is in the checkpoint key, as in an activation's: the bare event id
    indexCheckpoint: (a, device, cp, item) => dbs.actItems.putSync([gen, acct(a), checkpointKey(device, cp), item.timeMs, item.eventId], item.kind),
    indexCheckpointRecord: (a, device, cp, item) => dbs.actItems.putSync([gen, acct(a), (layout >= 4 ? checkpointRecordKey : checkpointKey)(device, cp), item.timeMs, item.eventId], item.kind),
    unindexSkill: (a, skill, item) => void dbs.skillItems.removeSync([gen, acct(a), skill, item.timeMs, ev(item.eventId, item.deviceId)]),
    getRollup: (r) => dbs.rollups.get(rollupKey(gen, r)),
    // a row every activation moved out of (see rollups.ts) is no row
    putRollup: (row) => (isEmptyRollup(row) ? dbs.rollups.removeSync(rollupKey(gen, row)) : dbs.rollups.putSync(rollupKey(gen, row), row)),
    rollupSessionCount(r, session) {
      // rows written before counts were kept hold `true`: one activation
      const stored = dbs.rollupSessions.get([...rollupKey(gen, r), session]);
      return typeof stored === 'number' ? stored : stored ? 1 : 0;
    },
    setRollupSessionCount(r, session, count) {
      const key = [...rollupKey(gen, r), session];
      if (count <= 0) dbs.rollupSessions.removeSync(key);
      else dbs.rollupSessions.putSync(key, count);
    },
  };
}

/** The skills (key component after `prefix`) that have keys under `prefix`: one seek per skill. */
function* rollupSkills(db: Database<number | true, Key>, prefix: Key): Generator<string> {
  let start: Key = prefix;
  for (;;) {
    const [next] = db.getKeys({ start, end: [...prefix, END], limit: 1 });
    if (next === undefined) return;
    const skill = (next as Key)[prefix.length] as string;
    yield skill;
    // past every key of this skill: its days sort below END
    start = [...prefix, skill, END];
  }
}

/** The first `limit` index entries under `prefix` in the time range (with `keep`, of those it keeps), oldest first. */
function items(db: Database<string, Key>, prefix: Key, fromMs: number, toMs: number, limit: number, keep?: (kind: string) => boolean): ActivationItem[] {
  const out: ActivationItem[] = [];
  if (limit <= 0) return out;
  for (const { key, value } of db.getRange({ start: [...prefix, fromMs], end: [...prefix, toMs, END], ...(keep ? {} : { limit }) })) {
    if (keep && !keep(value)) continue;
    const k = key as Key;
    out.push({ timeMs: k[prefix.length] as number, ...splitEventKey(k[prefix.length + 1] as string), kind: value });
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * The checkpoint index reads of a generation: a checkpoint's earliest record, and the change
 * summaries and outcomes naming it. Layout 4 keeps records under their own key (one positioned
 * read); in older generations they sit among the rest, so the record is searched for (without a
 * bound: the join must not depend on how many outcomes precede the record) until the rebuild.
 */
function checkpointIndex(dbs: ProjectionDbs, gen: number, layout: Layout, acct: AccountKey): Pick<ProjectionReader, 'checkpointRecord' | 'checkpointItems'> {
  const all = Number.MAX_SAFE_INTEGER;
  const isRecord = (kind: string) => kind === GIT_AI_CHECKPOINT;
  const prefix = (a: string, key: string): Key => [gen, acct(a), key];
  if (layout >= 4) {
    return {
      checkpointRecord: (a, device, cp) => items(dbs.actItems, prefix(a, checkpointRecordKey(device, cp)), 0, all, 1)[0],
      checkpointItems: (a, device, cp, limit) => items(dbs.actItems, prefix(a, checkpointKey(device, cp)), 0, all, limit),
    };
  }
  return {
    checkpointRecord: (a, device, cp) => items(dbs.actItems, prefix(a, checkpointKey(device, cp)), 0, all, 1, isRecord)[0],
    checkpointItems: (a, device, cp, limit) => items(dbs.actItems, prefix(a, checkpointKey(device, cp)), 0, all, limit, (kind) => !isRecord(kind)),
  };
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

function* decoded(rows: Iterable<Buffer>): Iterable<ObservationEventRow> {
  for (const bytes of rows) yield decodeEventRow(bytes);
}

/**
 * Reads one event row of generation `gen` in the layout's encoding: the device's (layouts 3, 4), or
 * without a device the lowest device id's (layouts 1 and 2 hold one row per id and ignore it).
 */
function eventGetter(dbs: ProjectionDbs, gen: number, layout: Layout, acct: AccountKey): ProjectionReader['getEvent'] {
  if (layout === 1) return (a, id) => dbs.events.get([gen, a, id]);
  const ev = eventKeyOf(layout);
  const firstDevice = (k: string | number, id: string): Buffer | undefined => {
    for (const { value } of dbs.eventsV2.getRange({ start: [gen, k, `${id} `], end: [gen, k, `${id}!`], limit: 1 })) return value;
    return undefined;
  };
  return (a, id, device) => {
    const k = acct(a);
    const bytes = layout >= 3 && device === undefined ? firstDevice(k, id) : dbs.eventsV2.get([gen, k, ev(id, device)]);
    return bytes && decodeEventRow(bytes);
  };
}

/** The reads of generation `gen`. */
export function reader(dbs: ProjectionDbs, gen: number, layout: Layout, acct: AccountKey): ProjectionReader {
  const ev = eventKeyOf(layout);
  const getEvent = eventGetter(dbs, gen, layout, acct);
  const allEvents = (): Iterable<ObservationEventRow> => (layout >= 2 ? decoded(values(dbs.eventsV2, gen)) : values(dbs.events, gen));
  const activations = layout >= 2 ? dbs.activationsV2 : dbs.activations;
  const derivedOne = <T>(a: string, id: string, device: string | undefined, of: (e: ObservationEventRow) => T | undefined): T | undefined => {
    const e = getEvent(a, id, device);
    return e && of(e);
  };
  /** The `act` key of an activation: the device's, else (no device given) the account's first one with that id, else the bare id of an older generation. */
  const findAct = (a: string, id: string, device: string | undefined): string => {
    if (device !== undefined) return activations.doesExist([gen, acct(a), actKey(id, device)]) ? actKey(id, device) : id;
    for (const key of activations.getKeys({ start: [gen, acct(a), `${id} `], end: [gen, acct(a), `${id}!`], limit: 1 })) return (key as Key)[2] as string;
    return id;
  };
  const checkpoints = checkpointIndex(dbs, gen, layout, acct);
  // a change at a Git AI checkpoint is read with the checkpoint's record (its active set and correlation)
  const checkpointOf = checkpointLookup({ getEvent, ...checkpoints });
  const changeAt = (e: ObservationEventRow) => changeOf(e, checkpointOf);
  return {
    getEvent,
    getActivation: (a, id, device) => activations.get([gen, acct(a), findAct(a, id, device)]),
    getAction: (a, id, device) => derivedOne(a, id, device, actionOf),
    getChange: (a, id, device) => derivedOne(a, id, device, changeAt),
    getFeedback: (a, id, device) => derivedOne(a, id, device, feedbackOf),
    timeline(a, repo, range: TimelineRange): TimelineEntry[] {
      const prefix = [gen, acct(a), repo];
      // a position past the window's end continues from the end: never an event after toMs
      const before = range.before && range.before.timeMs <= range.toMs ? range.before : undefined;
      const start = before ? [...prefix, before.timeMs, ev(before.eventId, before.deviceId)] : [...prefix, range.toMs, END];
      const out: TimelineEntry[] = [];
      for (const { key, value } of dbs.timeline.getRange({ start, end: [...prefix, range.fromMs], reverse: true, exclusiveStart: !!before, limit: range.limit })) {
        const k = key as Key;
        out.push({ timeMs: k[3] as number, ...splitEventKey(k[4] as string), kind: value });
      }
      return out;
    },
    countTimeline: (a, repo, fromMs, toMs, cap) => dbs.timeline.getKeysCount({ start: [gen, acct(a), repo, fromMs], end: [gen, acct(a), repo, toMs, END], limit: cap }),
    activationItems: (a, id, limit, device) => items(dbs.actItems, [gen, acct(a), findAct(a, id, device)], 0, Number.MAX_SAFE_INTEGER, limit),
    skillItems: (a, skill, fromMs, toMs, limit) => items(dbs.skillItems, [gen, acct(a), skill], fromMs, toMs, limit),
    ...checkpoints,
    rollups(pkg, skill, fromDay, toDay) {
      const out: UsageRollupRow[] = [];
      const prefix = skill === undefined ? [gen, pkg] : [gen, pkg, skill];
      for (const { value } of dbs.rollups.getRange({ start: prefix, end: [...prefix, END] })) {
        if (value.day >= fromDay && value.day <= toDay) out.push(value);
      }
      return out;
    },
    *rollupSessions(pkg, skill, fromDay, toDay) {
      // rollupKey + session: [gen, package, skill, day, account, version, artifactHash, host, trigger, session];
      // per skill only the window's days are read (rollups outlive raw retention, years of sessions)
      const skills = skill !== undefined ? [skill] : rollupSkills(dbs.rollupSessions, [gen, pkg]);
      for (const s of skills) {
        for (const key of dbs.rollupSessions.getKeys({ start: [gen, pkg, s, fromDay], end: [gen, pkg, s, toDay, END] })) {
          const k = key as Key;
          yield { packageId: pkg, skillId: s, day: k[3] as string, accountId: k[4] as string, version: k[5] as string, artifactHash: k[6] as string, host: k[7] as string, triggerType: k[8] as string, session: k[9] as string };
        }
      }
    },
    duplicateConflicts(a) {
      const prefix = [gen, acct(a), 'device'];
      const out: DeviceConflicts[] = [];
      for (const { key, value } of dbs.conflicts.getRange({ start: prefix, end: [...prefix, END] })) {
        out.push({ deviceId: (key as Key)[3] as string, ...(value as Omit<DeviceConflicts, 'deviceId'>) });
      }
      return out;
    },
    allEvents,
    allActivations: () => values(activations, gen),
    allActions: () => derived(allEvents(), actionOf),
    allChanges: () => derived(allEvents(), changeAt),
    allFeedback: () => derived(allEvents(), feedbackOf),
    allRollups: () => values(dbs.rollups, gen),
  };
}
