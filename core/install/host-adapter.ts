import type { Diagnostic } from '../errors/index.js';

/**
 * The port every agent-host adapter (adapters/<host>/) implements. The install orchestrator in
 * core/install only talks to hosts through this interface.
 */

export type Scope = 'user' | 'project';

export interface HostContext {
  /** the user's home directory (tests point this at a temp dir) */
  home: string;
  scope: Scope;
  /** required when scope is 'project' */
  projectRoot?: string;
  /** the directory the command runs in: a host may also read skills around it (Claude Code's `.claude/skills` up to the repository root) */
  cwd?: string;
  /** where config backups go ($SF_HOME/backups/...) */
  backupDir: string;
  env: NodeJS.ProcessEnv;
  /** check and compute every change, write nothing (preflight: see HostAdapter.preflight) */
  dryRun?: boolean;
  /**
   * Told of each config edit as soon as it is on disk, before the step that made it finishes, so
   * a rollback of a step that failed later still knows which entries are Forge's.
   */
  onConfigEdit?: (edit: ConfigEdit) => void;
  /**
   * Reads an adapter may share between the installations of one pass (doctor checks 200 SKITs
   * whose name-shadow checks scan the same skill roots and whose drift checks parse the same host
   * configs): keyed by what was read, cleared by the pass whenever it writes; what it holds is
   * shared, so only read. Absent: read afresh every time.
   */
  memo?: Map<string, Promise<unknown>>;
}

export interface ProjectedSkill {
  /** `owner/name:skill` */
  skillId: string;
  name: string;
  /** absolute directory holding the complete skill as the host must see it (own files + shared mappings materialized), inside the store */
  sourceDir: string;
  contentHash: string;
  enabled: boolean;
}

export interface ProjectionRequest {
  skitId: string;
  release: string;
  bundleHash: string;
  skills: ProjectedSkill[];
}

export interface ProjectedPath {
  skillId: string;
  /** absolute path of the skill directory in the host's skill root */
  path: string;
  mode: 'symlink' | 'copy';
}

export interface ConfigEdit {
  /** absolute path of the host config file Forge edited */
  file: string;
  /** absolute path of the backup written before the first edit, if the file existed */
  backup?: string;
}

/** What an adapter did, recorded in the library as the installation's target. */
export interface ProjectionRecord {
  agent: string;
  scope: Scope;
  projectRoot?: string;
  skillRoot: string;
  paths: ProjectedPath[];
  configEdits: ConfigEdit[];
}

export interface HostDetection {
  present: boolean;
  /** human-readable evidence, e.g. "found ~/.claude" or "claude binary on PATH" */
  evidence: string[];
  configFiles: string[];
}

/**
 * A host that now reads skills or keeps its switches somewhere else than an installation records,
 * because an environment variable changed (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME).
 */
export interface HostMove {
  agent: string;
  host: string;
  what: 'skill directory' | 'config file';
  /** where the installation is (the record) */
  recorded: string;
  /** where the host reads now */
  current: string;
  /** the variable that decides it, its value now (undefined: unset) and the value that leads to `recorded`, when known */
  variable: { name: string; now?: string; recorded?: string };
}

export interface HostAdapter {
  /** canonical agent id used on the command line and in records, e.g. 'claude-code' */
  readonly id: string;
  /** other accepted names, e.g. ['claude'] */
  readonly aliases: readonly string[];
  readonly displayName: string;
  /** true when the host has a native per-skill on/off control (then disabled skills stay projected but are turned off) */
  readonly nativeEnablement: boolean;
  /** the directory skills are projected into for this context */
  skillRoot(ctx: HostContext): string;
  detect(ctx: HostContext): Promise<HostDetection>;
  /**
   * Other hosts' skill directories this host also loads skills from (OpenCode reads
   * .claude/skills and .agents/skills): a skill another host keeps there switched off natively is
   * on for this one unless it is a target too.
   */
  alsoReads?(ctx: HostContext): string[];
  /**
   * project a complete release; must be idempotent and atomic per skill directory. `previous`: the
   * projection it replaces (an update), whose config entries are Forge's to change or remove
   */
  project(req: ProjectionRequest, ctx: HostContext, previous?: ProjectionRecord): Promise<ProjectionRecord>;
  /**
   * Everything `project` (no record) or `setEnablement` (with the record) would check, without
   * writing: config files that do not parse, user entries that would keep a disabled skill on,
   * unsafe paths. Run for every agent of a plan before any of them is changed.
   */
  preflight?(req: ProjectionRequest, record: ProjectionRecord | undefined, ctx: HostContext): Promise<void>;
  /** What `unproject` would check (config files that do not parse), without writing: run before any agent of a remove changes. */
  preflightUnproject?(record: ProjectionRecord, ctx: HostContext): Promise<void>;
  /**
   * Whether the host now reads `record`'s skills or switches elsewhere (see HostMove). Planners
   * refuse to change such a target in place; `project` (an update) moves it.
   */
  moved?(record: ProjectionRecord, ctx: HostContext): HostMove | undefined;
  /**
   * apply per-skill enablement after a change, returning the updated record; in the places `record`
   * names, even when the context now points elsewhere (a rollback restores what the record says)
   */
  setEnablement(req: ProjectionRequest, record: ProjectionRecord, ctx: HostContext): Promise<ProjectionRecord>;
  /** remove everything `record` says Forge put there, and only that */
  unproject(record: ProjectionRecord, ctx: HostContext): Promise<void>;
  /**
   * Skills of the user's that this host would confuse with Forge's because its switch goes by
   * name (warnings): reported when an install or enable/disable changes things, not only by doctor.
   */
  nameShadows?(req: ProjectionRequest, record: ProjectionRecord, ctx: HostContext): Promise<Diagnostic[]>;
  /** drift: missing/modified/dangling/foreign entries, config drift, disabled children exposed (in the places `record` names, as setEnablement) */
  diagnose(req: ProjectionRequest, record: ProjectionRecord, ctx: HostContext): Promise<Diagnostic[]>;
}
