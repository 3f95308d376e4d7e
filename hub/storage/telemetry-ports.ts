import type { OtlpSignal } from '../../core/telemetry/otlp/index.js';
import type { BlobStore } from './ports.js';
import type {
  ActivationActionRow, ChangeOutcomeRow, CollectorHealthRow, ObservationEventRow, SkillActivationRow, SkillFeedbackIncidentRow, UsageRollupRow,
} from '../projections/rows.js';
import type { ActivationSpanEnd } from '../projections/activations.js';

/**
 * Storage ports of the telemetry side of the hub (OTLP ingest, normalization queue, projections).
 * The embedded implementation keeps them in LMDB sub-databases of hub.lmdb plus a blob directory
 * for raw batches; a server database can implement the same interfaces.
 */

export type RetentionTierName = 'free' | 'paid';

export interface TelemetryAccountSettings {
  accountId: string;
  /** prompt/tool bodies and non-allowlisted attributes are kept only when true */
  contentCollection: boolean;
  retentionTier: RetentionTierName;
  updatedAt: string;
}

export interface TelemetrySettingsStore {
  get(accountId: string): TelemetryAccountSettings | undefined;
  put(settings: TelemetryAccountSettings): void;
}

/** A repository linked to an account: the only repositories client hints can resolve to. */
export interface RepositoryLink {
  /** server-issued `repo_...` id */
  id: string;
  accountId: string;
  name: string;
  /** pseudonymous repository/worktree fingerprints computed by the account's devices */
  fingerprints: string[];
  createdAt: string;
}

export interface RepositoryLinkStore {
  list(accountId: string): RepositoryLink[];
  get(accountId: string, repositoryId: string): RepositoryLink | undefined;
  /** creates or replaces a link; SF_E_CONFLICT when a fingerprint already belongs to another repository of the account */
  put(link: RepositoryLink): void;
  remove(accountId: string, repositoryId: string): boolean;
  /** the repository of `accountId` with that fingerprint */
  byFingerprint(accountId: string, fingerprint: string): string | undefined;
}

export interface RawBatchRecord {
  /** `rb_<sha256(device, sha256 of the body as received)>` (gateway.ts rawBatchId); unique per account */
  id: string;
  accountId: string;
  deviceId: string;
  signal: OtlpSignal;
  /** encoding of the stored bytes */
  encoding: 'protobuf' | 'json';
  sha256: string;
  bytes: number;
  /** true when the stored bytes are the request body exactly as received (after gunzip) */
  verbatim: boolean;
  receivedAt: string;
  receivedAtMs: number;
  records: number;
  rejected: number;
  droppedContent: number;
  /** registry attributes whose value was not of the registry's type (absent on batches stored before it was counted) */
  typeMismatches?: number;
  /** enum values outside the registry's members, kept (absent on batches stored before it was counted) */
  unknownEnumValues?: number;
  droppedLimits: number;
  foldedCardinality: number;
  sanitized: number;
  /**
   * The server-authoritative repository identity attached at ingest (spec "OTLP ingest gateway"):
   * every repository hint of the batch that resolved then, as `id:<forge.repository.id>` or
   * `fp:<fingerprint>` -> repository id. The normalizer resolves the batch's events through this
   * map, live and on rebuild alike, so linking a repository later does not change what a rebuild
   * makes of old batches. Absent on batches stored before it existed (they resolve through the
   * account's current links).
   */
  repositories?: Record<string, string>;
  /** admission order (set by RawBatchStore.admit; absent on batches stored before it existed): orders batches received in the same millisecond */
  receiptSeq?: number;
}

export interface QueueItem {
  seq: number;
  accountId: string;
  batchId: string;
}

export interface RawBatchStore {
  get(accountId: string, batchId: string): RawBatchRecord | undefined;
  /**
   * Records a raw batch and enqueues it for normalization in one transaction. Resolves false
   * (nothing written) when the account already stored this batch: a replayed delivery.
   * `alongside` runs inside the same transaction either way, told whether the batch is new (the
   * request's other writes, such as its health rows, so one request commits once).
   */
  admit(record: RawBatchRecord, alongside?: (stored: boolean) => void): Promise<{ stored: boolean; seq?: number }>;
  /** every stored batch in receipt order (receipt time, then admission order) */
  listByReceipt(): Iterable<RawBatchRecord>;
  /** batches received before `ms`, oldest first */
  listReceivedBefore(ms: number): Iterable<RawBatchRecord>;
  delete(accountId: string, batchId: string): Promise<void>;
  /**
   * The retention sweep of a batch whose normalized events are kept: deletes its record (as
   * `delete`) and stores it as an expired batch with `events` (ExpiredFactStore), in one
   * transaction, so a crash leaves either the raw batch or its kept facts.
   */
  expire(record: RawBatchRecord, events: readonly ExpiredEvent[], sweptAt: string): Promise<void>;
  /** true while any account's batch record points at the blob */
  blobReferenced(sha256: string): boolean;
}

/**
 * A normalized event of a swept raw batch, as the live projections had it when the batch was
 * swept: its row (normalizer version, raw event id and `rawBatchId` unchanged) and, for an
 * activation span, how the span ended (not part of the row).
 */
export interface ExpiredEvent {
  row: ObservationEventRow;
  span?: ActivationSpanEnd;
}

/**
 * What stays of a raw batch the retention sweep removed: its identity and its place in the
 * replay order (receipt sequence and time), not its bytes. Its normalized events are kept beside
 * it (ExpiredFactStore.events).
 */
export interface ExpiredBatch {
  id: string;
  accountId: string;
  deviceId: string;
  signal: OtlpSignal;
  receivedAt: string;
  receivedAtMs: number;
  /** as on the raw batch record (absent on batches stored before it existed) */
  receiptSeq?: number;
  /** records the batch carried */
  records: number;
  /** normalized events kept */
  events: number;
  sweptAt: string;
}

/**
 * The normalized facts of swept raw batches (RawBatchStore.expire). A rebuild cannot replay a
 * batch whose bytes are gone; it applies these instead, in the batch's place in the replay order,
 * so the projections of swept history survive every rebuild unchanged.
 */
export interface ExpiredFactStore {
  /** every expired batch (in no particular order) */
  list(): Iterable<ExpiredBatch>;
  get(accountId: string, batchId: string): ExpiredBatch | undefined;
  /** the batch's kept events, in the order the batch produced them */
  events(accountId: string, batchId: string): ExpiredEvent[] | undefined;
}

export interface NormalizationQueue {
  /** up to `limit` items, oldest first */
  peek(limit: number): QueueItem[];
  depth(): number;
  /** queued items per account (for per-account back-pressure) */
  depthByAccount(): Map<string, number>;
}

/** One entry of the per-repository event timeline index. */
export interface TimelineEntry {
  timeMs: number;
  eventId: string;
  /** the event name (or span kind), so pages can be filtered without loading rows */
  kind: string;
  /**
   * The device whose event it is. Event ids are unique per device (ProjectionWriter.insertEvent),
   * so reads pass it on to name the row; absent in generations that deduplicated per account.
   */
  deviceId?: string;
}

/** An event linked to an activation or a skill; `kind` is the event name (or span kind). */
export interface ActivationItem {
  timeMs: number;
  eventId: string;
  kind: string;
  /** the device whose event it is (as for TimelineEntry) */
  deviceId?: string;
}

/** A session counted in a usage rollup row: the row's dimensions and the session's key (device and session id). */
export type RollupSession = Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'artifactHash' | 'host' | 'triggerType'> & { session: string };

/** An index entry as the normalizer writes it: always with its event's device. */
export type IndexedItem<T extends TimelineEntry | ActivationItem> = T & { deviceId: string };

/** What the normalizer reads of the events it only indexes (see hub/projections/apply.ts `indexOnly`). */
export type EventHead = Pick<ObservationEventRow, 'eventId' | 'eventName' | 'time' | 'accountId' | 'deviceId' | 'repositoryId' | 'skillId' | 'activationId' | 'activationIds' | 'phase'>;

/**
 * A conflicting duplicate: an event a device sent with an agent.skill.event.id it had already
 * used, with other content (a buggy or hostile emitter reusing ids). The dedupe keeps the first
 * copy; this records the one it dropped.
 */
export interface DuplicateConflict {
  accountId: string;
  deviceId: string;
  eventId: string;
  /** digest of the dropped copy's content: its redeliveries (and a rebuild) record it once */
  digest: string;
  eventName: string;
  time: string;
  /** the raw batch that carried the dropped copy */
  rawBatchId: string;
  /** the raw batch of the copy kept */
  keptRawBatchId: string;
}

/** The conflicting duplicates of one device (ProjectionWriter.recordConflict). */
export interface DeviceConflicts {
  deviceId: string;
  /** distinct conflicting copies */
  count: number;
  /** the latest recorded (at most RECENT_CONFLICTS), newest first */
  recent: Omit<DuplicateConflict, 'accountId' | 'deviceId' | 'digest'>[];
}

/** How many of a device's conflicting duplicates are listed (ProjectionReader.duplicateConflicts). */
export const RECENT_CONFLICTS = 10;

/**
 * Writes of one normalization transaction, bound to a projection generation. Activations are
 * identified by (account, device, activation id): activation ids are assigned on the device
 * (spec "Correlation keys"), so two devices using the same id are two activations.
 */
export interface ProjectionWriter {
  /**
   * Stores the event unless its device already sent one with that id (the dedupe, per account,
   * device and event id: a second device's event with the same id is that device's own, as
   * activations are); true when stored. `encoded` is the row as ProjectionStore.encodeEvents
   * made it, when it was encoded ahead: then it is what is stored, and only `row`'s account,
   * device and event id are read.
   */
  insertEvent(row: ObservationEventRow, encoded?: Uint8Array): boolean;
  /** The event stored under the device's id (what a duplicate is compared with; in generations that deduplicated per account, whichever device's). */
  storedEvent(accountId: string, deviceId: string, eventId: string): ObservationEventRow | undefined;
  /**
   * Records a conflicting duplicate once per (device, event id, digest): true when it is new, and
   * then counted for the device and listed among its latest RECENT_CONFLICTS.
   */
  recordConflict(conflict: DuplicateConflict): boolean;
  indexTimeline(accountId: string, repositoryKey: string, entry: IndexedItem<TimelineEntry>): void;
  getActivation(accountId: string, deviceId: string, activationId: string): SkillActivationRow | undefined;
  /** stores the row under its (account, device, activation id) */
  putActivation(row: SkillActivationRow): void;
  linkActivationItem(accountId: string, deviceId: string, activationId: string, item: ActivationItem): void;
  /** the stored events linked to an activation (linkActivationItem, the device's own events) whose event name is in `names` */
  linkedEvents(accountId: string, deviceId: string, activationId: string, names: ReadonlySet<string>): ObservationEventRow[];
  /** records that two activations of a device were active together; true when the pair is new */
  addCoactive(accountId: string, deviceId: string, a: string, b: string): boolean;
  coactive(accountId: string, deviceId: string, activationId: string): string[];
  indexSkill(accountId: string, skillId: string, item: IndexedItem<ActivationItem>): void;
  /**
   * indexes a change summary or Git AI outcome of a device under the git.ai.checkpoint.id it names
   * (listed with the checkpoint's activations, joined to its record: facts.ts `checkpointLookup`)
   */
  indexCheckpoint(accountId: string, deviceId: string, checkpointId: string, item: ActivationItem): void;
  /** indexes a git.ai.checkpoint.created record of a device under its checkpoint id (ProjectionReader.checkpointRecord) */
  indexCheckpointRecord(accountId: string, deviceId: string, checkpointId: string, item: ActivationItem): void;
  /** removes an entry `indexSkill` made (an activation's entry moves when its skill or first time changes) */
  unindexSkill(accountId: string, skillId: string, item: Pick<IndexedItem<ActivationItem>, 'timeMs' | 'eventId' | 'deviceId'>): void;
  getRollup(row: Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'artifactHash' | 'host' | 'triggerType'>): UsageRollupRow | undefined;
  putRollup(row: UsageRollupRow): void;
  /** true when `sessionKey` is new for the rollup row (distinct session counting) */
  /** How many activations of session `sessionKey` are in the rollup row (its distinct sessions are those above 0). */
  rollupSessionCount(row: Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'artifactHash' | 'host' | 'triggerType'>, sessionKey: string): number;
  setRollupSessionCount(row: Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'artifactHash' | 'host' | 'triggerType'>, sessionKey: string, count: number): void;
}

export interface TimelineRange {
  fromMs: number;
  toMs: number;
  limit: number;
  /** continue strictly before this (timeMs, eventId, deviceId) position, newest first */
  before?: { timeMs: number; eventId: string; deviceId?: string };
}

/**
 * Reads of one projection generation. activation_actions, change_outcomes and
 * skill_feedback_incidents rows are functions of one observation event each
 * (hub/projections/facts.ts): a store may derive them from the event row instead of storing them.
 */
export interface ProjectionReader {
  /**
   * The event `deviceId` sent with that id (event ids are unique per device); without a device,
   * the row of the lowest device id that used it (ad-hoc reads: index entries name the device).
   */
  getEvent(accountId: string, eventId: string, deviceId?: string): ObservationEventRow | undefined;
  /**
   * The activation of a device; without `deviceId`, the account's first activation with that id
   * (ad-hoc reads and tests: queries always name the device, activation ids are unique per device only).
   */
  getActivation(accountId: string, activationId: string, deviceId?: string): SkillActivationRow | undefined;
  getAction(accountId: string, eventId: string, deviceId?: string): ActivationActionRow | undefined;
  getChange(accountId: string, eventId: string, deviceId?: string): ChangeOutcomeRow | undefined;
  getFeedback(accountId: string, eventId: string, deviceId?: string): SkillFeedbackIncidentRow | undefined;
  /** timeline entries of a repository (or the unresolved bucket), newest first */
  timeline(accountId: string, repositoryKey: string, range: TimelineRange): TimelineEntry[];
  /** entries in the window, counting at most `cap` */
  countTimeline(accountId: string, repositoryKey: string, fromMs: number, toMs: number, cap: number): number;
  activationItems(accountId: string, activationId: string, limit: number, deviceId?: string): ActivationItem[];
  skillItems(accountId: string, skillId: string, fromMs: number, toMs: number, limit: number): ActivationItem[];
  /** the change summaries and Git AI outcomes of a device naming a checkpoint (ProjectionWriter.indexCheckpoint), oldest first */
  checkpointItems(accountId: string, deviceId: string, checkpointId: string, limit: number): ActivationItem[];
  /** the earliest git.ai.checkpoint.created record of a device's checkpoint (ProjectionWriter.indexCheckpointRecord) */
  checkpointRecord(accountId: string, deviceId: string, checkpointId: string): ActivationItem | undefined;
  /** rollup rows of a SKIT (optionally one contained skill) between two UTC days inclusive, every account */
  rollups(packageId: string, skillId: string | undefined, fromDay: string, toDay: string): UsageRollupRow[];
  /**
   * the sessions counted in those rollup rows (ProjectionWriter.setRollupSessionCount), one entry per
   * row and session: usage counts distinct sessions over any set of rows from them
   */
  rollupSessions(packageId: string, skillId: string | undefined, fromDay: string, toDay: string): Iterable<RollupSession>;
  /** the account's conflicting duplicates per device (ProjectionWriter.recordConflict), by device id */
  duplicateConflicts(accountId: string): DeviceConflicts[];
  /** every observation event of the generation (tests and golden fixtures) */
  allEvents(): Iterable<ObservationEventRow>;
  allActivations(): Iterable<SkillActivationRow>;
  allActions(): Iterable<ActivationActionRow>;
  allChanges(): Iterable<ChangeOutcomeRow>;
  allFeedback(): Iterable<SkillFeedbackIncidentRow>;
  allRollups(): Iterable<UsageRollupRow>;
}

export interface GenerationInfo {
  generation: number;
  normalizerVersion: string;
  builtAt: string;
}

export interface ProjectionStore {
  active(): GenerationInfo | undefined;
  setActive(info: GenerationInfo): Promise<void>;
  /** the highest generation number ever used (active or being rebuilt) */
  lastGeneration(): number;
  reader(generation: number): ProjectionReader;
  /**
   * Runs `fn` in one write transaction against `generation` and removes the queue items `ack`
   * in the same transaction, so a batch is applied and dequeued atomically.
   */
  write<T>(generation: number, fn: (w: ProjectionWriter) => T, ack?: readonly number[]): Promise<T>;
  /**
   * Event rows in the store's own encoding, back to back (row i ends at `ends[i]`), for
   * ProjectionWriter.insertEvent: lets another thread do the encoding ahead of the write
   * transaction (a store may ignore it for a generation that stores rows differently). Pure, and
   * safe to call outside transactions.
   */
  encodeEvents(rows: readonly ObservationEventRow[]): { values: Uint8Array; ends: Uint32Array };
  /** One event row from `encodeEvents`' bytes (fields it does not have may be present as undefined). */
  decodeEvent(bytes: Uint8Array): ObservationEventRow;
  /**
   * The head of an event row from `encodeEvents`' bytes (cheaper than the whole row); undefined,
   * with no more than the name decoded, when `wanted` says no to the event's name.
   */
  decodeEventHead(bytes: Uint8Array, wanted?: (eventName: string) => boolean): EventHead | undefined;
  /** removes every row of a generation */
  drop(generation: number): Promise<void>;
}

/**
 * An acknowledged raw batch whose records are not in the live projections: the normalizer gave up
 * on it (its raw bytes unreadable or missing, or every attempt failed). Shown in the account's
 * health view; a rebuild that replays the batch after all clears it.
 */
export interface NormalizationFailure {
  accountId: string;
  batchId: string;
  deviceId: string;
  /** records the batch carried */
  records: number;
  /** what went wrong (the last attempt's error) */
  reason: string;
  failedAt: string;
}

export interface HealthStore {
  get(accountId: string, key: string): CollectorHealthRow | undefined;
  put(key: string, row: CollectorHealthRow): void;
  list(accountId: string): CollectorHealthRow[];
  /** records (or replaces) a batch's failure; inside a write transaction it joins it */
  recordNormalizationFailure(failure: NormalizationFailure): void;
  /** the account's failed batches, or every account's without `accountId` */
  normalizationFailures(accountId?: string): NormalizationFailure[];
  /** forgets the failures of these batches (a rebuild replayed them) */
  clearNormalizationFailures(batches: readonly { accountId: string; batchId: string }[]): Promise<void>;
}

export interface TelemetryStorage {
  settings: TelemetrySettingsStore;
  repositories: RepositoryLinkStore;
  rawBatches: RawBatchStore;
  /** raw batch bytes, content-addressed (a directory of its own, never shared with release blobs) */
  rawBlobs: BlobStore;
  /** the kept facts of raw batches the retention sweep removed */
  expired: ExpiredFactStore;
  queue: NormalizationQueue;
  projections: ProjectionStore;
  health: HealthStore;
  /**
   * Makes the next reads see every committed write, including another thread's (the embedded
   * store reads from a per-thread snapshot that otherwise moves on at the next event-loop turn).
   */
  freshReads(): void;
}
