import type { InstallationRecord, IntentOp, InventoryEvent, ReleaseRef, SkillRecord, SourceRecord } from '../library/types.js';
import type { PreparedAudit } from './audit.js';
import type { PathOwners } from './plan-checks.js';
import type { ConfigEdit, ProjectedPath, ProjectionRecord, ProjectionRequest, Scope } from './host-adapter.js';

/**
 * Data shapes of the plan-then-apply install pipeline. A Plan is pure data (it is stored in the
 * journal intent), computed by core/install/plan*.ts from library state and filesystem
 * observations, and executed by core/install/apply.ts.
 */

/** One agent target of an installation, as resolved before planning. */
export interface TargetSpec {
  agent: string;
  scope: Scope;
  projectRoot?: string;
  /** absolute skill root of the agent for this scope */
  skillRoot: string;
  /** the adapter keeps disabled skills projected and turns them off natively */
  nativeEnablement: boolean;
}

/** A validated, hashed release ready to be stored and projected. */
export interface PreparedRelease {
  skitId: string;
  provisional: boolean;
  release: ReleaseRef;
  bundleHash: string;
  skills: SkillRecord[];
  source: SourceRecord;
  /** the review of the release's declarations, for the telemetry of the install or update that brings it */
  audit?: PreparedAudit;
  /** hub: the newest installable release, when it lies beyond the range the update followed (said in a note) */
  newer?: string;
}

/** What the survey found at one absolute path (nothing is followed). */
export interface ObservedPath {
  kind: 'absent' | 'symlink' | 'dir' | 'other';
  /** a symlink pointing into $SF_HOME/store */
  intoStore?: boolean;
  /** files that differ from the recorded projection (only surveyed for Forge-owned paths) */
  localChanges?: string[];
  /**
   * A path the installation records (as this mode) that now holds something Forge did not put
   * there: a directory or file where Forge made a link, or a link out of the store. It is the
   * user's, so no plan writes to it or deletes it.
   */
  replaced?: 'symlink' | 'copy';
}

/** Filesystem facts the impure survey gathered; the planners read nothing else from disk. */
export interface Observations {
  paths: Record<string, ObservedPath>;
  /** the store has no entry for the release of the installation being changed (its links dangle) */
  storeEntryMissing?: boolean;
}

/** The library state a planner sees. */
export interface PlanState {
  installations: InstallationRecord[];
  observations: Observations;
  /** `installations` indexed by the paths they record, when the caller keeps one (a pass over many); else built once per plan */
  owners?: PathOwners;
}

export type Step =
  | { kind: 'store'; bundleHash: string }
  /** `record`: the projection of the release being replaced (its config ledger says which entries are Forge's) */
  | { kind: 'project'; target: TargetSpec; request: ProjectionRequest; record?: ProjectionRecord }
  /**
   * `keep`: recorded paths the user's own entries replaced; left out of `request` and `record` so
   * the change goes ahead around them, and put back into the resulting record as they were
   */
  | { kind: 'enablement'; target: TargetSpec; request: ProjectionRequest; record: ProjectionRecord; keep?: ProjectedPath[] }
  | { kind: 'unproject'; target: TargetSpec; record: ProjectionRecord };

export interface Plan {
  op: IntentOp;
  /** scope key of the installation (`user` or `project:<root>`) */
  scopeKey: string;
  skitId: string;
  before: InstallationRecord | null;
  /** the record after the plan; its targets are predictions until apply replaces them with what the adapters report */
  after: InstallationRecord | null;
  steps: Step[];
  events: InventoryEvent[];
  /** bundles that may become unreferenced (deleted from the store after commit if nothing else uses them) */
  gcCandidates: string[];
  /** human-readable notes (an alias recorded, nothing to do, ...) */
  notes: string[];
  /** an install or update that moves to an older release than the one installed (versions or version-like git tags) */
  downgrade?: { from: string; to: string };
  /**
   * Installed skill directories with local edits that a forced install or update replaces or
   * deletes: the command copies each to $SF_HOME/backups/edits/ before the plan is applied.
   */
  overwrites?: EditedPath[];
  /**
   * Config edits the adapters reported while the plan was applied, per agent, in order: a
   * rollback treats their entries as Forge's even when the step that wrote them failed later.
   */
  attempted?: Record<string, ConfigEdit[]>;
}

/** An installed skill directory whose files differ from the release it was installed from. */
export interface EditedPath {
  agent: string;
  skillId: string;
  path: string;
  /** the changed, added and missing files, relative to `path` */
  files: string[];
}

/** Inputs every planner needs besides state. */
export interface PlanEnv {
  /** $SF_HOME/store */
  storeRoot: string;
  now: string;
  installerVersion: string;
  /** id generator for events (deterministic in tests) */
  newId: () => string;
}
