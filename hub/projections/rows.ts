/**
 * Row shapes of the hub's telemetry projections (spec "Forge canonical storage model"). Every
 * derived row keeps `normalizerVersion` and the raw event ids it was built from, so it can be
 * replayed and explained. Values are JSON-safe (no bigint, no bytes).
 */

export type JsonScalar = string | number | boolean | null;
export type JsonValue = JsonScalar | JsonValue[] | { [key: string]: JsonValue };

export type RepositoryResolution = 'resolved' | 'repo_unresolved';
export type DedupBasis = 'event_id' | 'batch_fingerprint';
export type AttributionFidelity = 'exact' | 'shared' | 'inferred' | 'unknown';

/** Identity shared by every row: who sent it (server-authoritative) and where it happened. */
export interface RowIdentity {
  accountId: string;
  deviceId: string;
  repositoryId?: string;
  repositoryResolution: RepositoryResolution;
  sessionId?: string;
  turnId?: string;
}

/** observation_events: one row per normalized event (log record, span, or catalog span event). */
export interface ObservationEventRow extends RowIdentity {
  eventId: string;
  dedupBasis: DedupBasis;
  eventName: string;
  signal: 'logs' | 'traces';
  /** RFC 3339 with nanoseconds */
  time: string;
  /** which timestamp `time` is: the source's, the observed one, or receipt (missing or implausible source time) */
  timeSource: 'source' | 'observed' | 'received';
  observedTime?: string;
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  spanName?: string;
  serviceName?: string;
  hostName?: string;
  hostVersion?: string;
  adapterName?: string;
  adapterVersion?: string;
  conversationId?: string;
  agentName?: string;
  model?: string;
  packageId?: string;
  skillId?: string;
  skillName?: string;
  artifactVersion?: string;
  artifactHash?: string;
  contentHash?: string;
  activationId?: string;
  activationIds?: string[];
  phase?: string;
  result?: string;
  triggerType?: string;
  reasonCode?: string;
  errorType?: string;
  evidenceSource?: string;
  evidenceFidelity?: string;
  schemaUrl?: string;
  /** the admitted attributes not carried by a typed field (metadata only unless the account opted into content) */
  attributes: Record<string, JsonValue>;
  /** the log body: present only for accounts that opted into content collection */
  body?: JsonValue;
  rawBatchId: string;
  normalizerVersion: string;
}

/**
 * How an activation's load ended: `complete`/`truncated` (loaded), `failed`, `blocked` or
 * `cancelled` (a load_failed event or an activation span with agent.skill.result
 * blocked/cancelled: not loaded, not a failure), `pending` (selected, no result yet) or `unknown`
 * (no selection or load seen, or an activation span whose result was `unknown`).
 */
export type LoadCompleteness = 'complete' | 'truncated' | 'failed' | 'blocked' | 'cancelled' | 'pending' | 'unknown';

/** agent.skill.result of an activation span (spec "Core enums"); an unregistered value reads as `unknown`. */
export type ActivationResult = 'ok' | 'error' | 'blocked' | 'cancelled' | 'unknown';

/**
 * skill_activations: one row per activation (account, device, activation id: activation ids are
 * assigned on the device), joining selection, load result, trigger and the active set.
 */
export interface SkillActivationRow extends RowIdentity {
  activationId: string;
  conversationId?: string;
  hostName?: string;
  serviceName?: string;
  agentName?: string;
  model?: string;
  packageId?: string;
  skillId?: string;
  skillName?: string;
  /** how the observer resolved the host's skill in the Forge library (agent.skill.library.resolution): says why an unresolved skill has no SKIT */
  libraryResolution?: string;
  artifactVersion?: string;
  artifactHash?: string;
  contentHash?: string;
  sourceType?: string;
  triggerType?: string;
  triggerSource?: string;
  selectorType?: string;
  selectionReason?: string;
  autonomyMode?: string;
  approvalMode?: string;
  sandboxMode?: string;
  networkMode?: string;
  selectedAt?: string;
  loadStartedAt?: string;
  loadedAt?: string;
  loadFailedAt?: string;
  deactivatedAt?: string;
  /** when a load_failed event (blocked, cancelled) or an activation span (blocked, cancelled, unknown) ended the load with that agent.skill.result (the earliest of each) */
  loadEnded?: { blocked?: string; cancelled?: string; unknown?: string };
  load: LoadCompleteness;
  /** selection to load result, in milliseconds */
  loadDurationMs?: number;
  loadDurationSource?: 'timestamps' | 'reported';
  instructions?: { fileCount?: number; byteCount?: number; tokenCount?: number; truncated?: boolean; truncationReason?: string; expectedFileCount?: number; expectedByteCount?: number };
  /** why it did not load: the failure's error, or what a block or cancellation reported (e.g. `permission_denied` at stage `permission`) */
  error?: { type?: string; stage?: string; reasonCode?: string; missingFiles?: number; invalidFiles?: number };
  /** other activations observed active together with this one (co-listed on actions, changes or conflicts), sorted */
  activeSet: string[];
  /** the evidence source of the event the fidelity came from (else of the most preferred event naming one) */
  evidenceSource?: string;
  /** the weakest evidence fidelity among the events that built the row */
  evidenceFidelity?: string;
  /**
   * Which event supplied each merged field, as `<preference>|<event time>|<event id>`: a field
   * keeps the value of the event with the lowest key (the phase authoritative for it, then the
   * earliest, then the smallest id), so the row is the same in any arrival order.
   */
  fieldSources?: Record<string, string>;
  firstSeen: string;
  lastSeen: string;
  rawEventIds: string[];
  normalizerVersion: string;
}

/** activation_actions: one row per action (event or tool span), linked to every active activation. */
export interface ActivationActionRow extends RowIdentity {
  eventId: string;
  time: string;
  source: 'event' | 'span';
  actionType: string;
  mutating?: boolean;
  scope?: string;
  risk?: string;
  approvalState?: string;
  result?: string;
  toolName?: string;
  toolCallId?: string;
  errorType?: string;
  activationIds: string[];
  /** never `exact` for one skill when several were active: exact claims over several ids become `shared` */
  attributionFidelity: AttributionFidelity;
  /** the fidelity the client claimed, kept when the hub lowered it */
  reportedFidelity?: string;
  evidenceSource?: string;
  evidenceFidelity?: string;
  rawEventIds: string[];
  normalizerVersion: string;
}

/** change_outcomes: bounded change/test/build/commit/deploy/cost summary at a turn, checkpoint or session end. */
export interface ChangeOutcomeRow extends RowIdentity {
  eventId: string;
  time: string;
  boundary?: string;
  checkpointId?: string;
  activationIds: string[];
  /**
   * as for actions (facts.ts `attribution`): never exact from fallback or inferred evidence, `shared` over several activations;
   * at a Git AI checkpoint never above its correlation (`session_shared`: shared, `inferred`: inferred) and `shared` when the
   * checkpoint recorded several active activations (facts.ts `gitAiAttribution`)
   */
  attributionFidelity: AttributionFidelity;
  /** the fidelity the client claimed, kept when the hub lowered it */
  reportedFidelity?: string;
  /** git.ai.correlation.fidelity of the change, else of its checkpoint's record */
  correlationFidelity?: string;
  /** the active set the checkpoint's git.ai.checkpoint.created record lists (joined by checkpoint id, same device) */
  checkpointActivationIds?: string[];
  scope: { source?: string; confidence?: string; baselineCount?: number; outsideInitialScope: number | null; newPaths?: number };
  /** agent.change.<name>.count values keyed by <name> (file.added, line.deleted, test.failed, commit, ...) */
  counts: Record<string, number>;
  worktreeDirty?: boolean;
  durationSeconds?: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  evidenceSource?: string;
  evidenceFidelity?: string;
  rawEventIds: string[];
  normalizerVersion: string;
}

/**
 * git_ai_checkpoints: one row per git.ai.checkpoint.created record: the Git AI session/checkpoint/attestation
 * identity, the real OTel trace/span it was recorded in, the active activations and how exactly they are
 * correlated with the checkpoint.
 */
export interface GitAiCheckpointRow extends RowIdentity {
  eventId: string;
  time: string;
  checkpointId: string;
  gitAiSessionId?: string;
  attestationKey?: string;
  /** git.ai.correlation.fidelity (`checkpoint_exact`, `session_shared`, `inferred`), `unknown` when not sent */
  correlationFidelity: string;
  activationIds: string[];
  traceId?: string;
  spanId?: string;
  toolCallId?: string;
  gitAiVersion?: string;
  gitAiSchemaVersion?: string;
  gitAiSource?: string;
  evidenceSource?: string;
  evidenceFidelity?: string;
  rawEventIds: string[];
  normalizerVersion: string;
}

/**
 * git_ai_attribution_outcomes: line counts of one Git AI outcome record (lines accepted or overridden, a
 * commit's attribution, an attribution update or survival, an abandoned session) by checkpoint and commit.
 */
export interface GitAiOutcomeRow extends RowIdentity {
  eventId: string;
  time: string;
  eventName: string;
  checkpointId?: string;
  gitAiSessionId?: string;
  commitSha?: string;
  originalCommitSha?: string;
  rewriteOperation?: string;
  survivalWindowDays?: number;
  /** git.ai.lines.<name>.count values keyed by <name> (generated, accepted, committed, overridden, abandoned, reverted, surviving) */
  lines: Record<string, number>;
  /** the record's own activation ids plus those its checkpoint's record lists */
  activationIds: string[];
  /** git.ai.correlation.fidelity of the record, else of its checkpoint's record */
  correlationFidelity?: string;
  /** as for change outcomes at a checkpoint */
  attributionFidelity: AttributionFidelity;
  reportedFidelity?: string;
  evidenceSource?: string;
  evidenceFidelity?: string;
  rawEventIds: string[];
  normalizerVersion: string;
}

export type FeedbackKind = 'intervention' | 'feedback' | 'incident' | 'quarantine' | 'disable' | 'uninstall';

/** skill_feedback_incidents: negative and structured signals, kept with or without a runtime trace. */
export interface SkillFeedbackIncidentRow extends RowIdentity {
  eventId: string;
  kind: FeedbackKind;
  time: string;
  packageId?: string;
  skillId?: string;
  artifactVersion?: string;
  contentHash?: string;
  activationId?: string;
  activationIds?: string[];
  interventionType?: string;
  reasonCode?: string;
  reasonCodes?: string[];
  elapsedSeconds?: number;
  sentiment?: string;
  incidentId?: string;
  incidentClass?: string;
  severity?: string;
  resolution?: string;
  actorType?: string;
  quarantineAction?: string;
  replacementId?: string;
  evidenceSource?: string;
  evidenceFidelity?: string;
  rawEventIds: string[];
  normalizerVersion: string;
}

/**
 * Counters of one daily usage rollup row. `activations` counts distinct activation ids; `loaded`,
 * `truncated` and `loadFailed` count activations reaching that state; `interventions` counts user
 * interventions of every type (disable_skill and uninstall_skill included); `disables` and
 * `uninstalls` count inventory changes observed on disk; `negativeFeedback` counts negative
 * feedback and negative_feedback interventions; `sessions` counts distinct sessions.
 */
export interface UsageCounters {
  activations: number;
  explicit: number;
  implicit: number;
  loaded: number;
  truncated: number;
  loadFailed: number;
  /** activations by the weakest evidence fidelity behind them (spec: never collapse exact and inferred into one unexplained count) */
  exact: number;
  derived: number;
  inferred: number;
  unknownFidelity: number;
  interventions: number;
  negativeFeedback: number;
  incidents: number;
  disables: number;
  uninstalls: number;
  sessions: number;
}

/** usage_rollups: daily counters per account, SKIT, contained skill, release (version and bundle hash), host and trigger type. */
export interface UsageRollupRow extends UsageCounters {
  day: string;
  accountId: string;
  /** '' when the events did not name a SKIT */
  packageId: string;
  /** '' for SKIT-level evidence that did not name a contained skill (never spread over the children) */
  skillId: string;
  /** artifact.version, '' when none was sent */
  version: string;
  /**
   * artifact.hash (the bundle hash), '' when none was sent: with the version it identifies the
   * release, since a version may be mutable (a git branch) or missing (a local directory)
   */
  artifactHash: string;
  host: string;
  triggerType: string;
  normalizerVersion: string;
}

export const ZERO_COUNTERS: UsageCounters = {
  activations: 0, explicit: 0, implicit: 0, loaded: 0, truncated: 0, loadFailed: 0, exact: 0, derived: 0, inferred: 0, unknownFidelity: 0,
  interventions: 0, negativeFeedback: 0, incidents: 0, disables: 0, uninstalls: 0, sessions: 0,
};

/** collector/adapter health: one row per emitting process identity of a device (not versioned; ingest-time facts). */
export interface CollectorHealthRow {
  accountId: string;
  deviceId: string;
  serviceName: string;
  serviceInstanceId?: string;
  hostName?: string;
  adapterName?: string;
  adapterVersion?: string;
  firstSeen: string;
  /** the last export of any signal: the heartbeat */
  lastSeen: string;
  lastSignal: string;
  batches: number;
  records: number;
  /** deliveries of a batch already stored (acknowledged and ignored; not in batches or records) */
  replays?: number;
  rejected: number;
  droppedContent: number;
  /** registry attributes whose value was not of the registry's type: schema validation failures (dropped without content opt-in) */
  typeMismatches: number;
  /** enum values outside the registry's members: kept as sent, counted */
  unknownEnumValues: number;
  droppedLimits: number;
  foldedCardinality: number;
  sanitized: number;
  /** agent.skill.telemetry.dropped.count reported by the client (delta points summed, cumulative points latest) */
  clientDropped: number;
  lastSchemaUrl?: string;
}
