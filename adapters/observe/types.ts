import type { Diagnostic } from '../../core/errors/index.js';
import type { HostDetection } from '../../core/install/host-adapter.js';
import type { ObserveConfigEdit } from '../config/observe-json.js';
import type { TomlTableEdit } from '../config/toml-table.js';

/** Adapter ids of the hosts with an observability adapter. */
export type ObserveHostId = 'claude-code' | 'codex' | 'opencode';

/** Where the observability pieces of the hosts point and live. */
export interface ObserveContext {
  /** the user's home directory */
  home: string;
  env: NodeJS.ProcessEnv;
  /** $SF_HOME */
  sfHome: string;
  /** the observer's OTLP/HTTP receiver port on 127.0.0.1 */
  port: number;
  /** config backups ($SF_HOME/backups/observe) */
  backupDir: string;
  /** where older versions kept Forge-owned hook scripts ($SF_HOME/observe/hooks); uninstall removes it when empty */
  hooksDir: string;
  /** where hooks and plugins spool what they could not deliver ($SF_HOME/queue/spool) */
  spoolDir: string;
}

/** A file Forge wrote whole (hook script, plugin); removed only while it still has these bytes. */
export interface ManagedFile {
  path: string;
  sha256: string;
}

/** What one host adapter changed, kept in $SF_HOME/observe/install.json for update, doctor and uninstall. */
export interface ObserveHostRecord {
  agent: ObserveHostId;
  /** Forge version that wrote it */
  version: string;
  appliedAt: string;
  port: number;
  jsonEdits: ObserveConfigEdit[];
  tomlEdits: TomlTableEdit[];
  files: ManagedFile[];
  /** directories Forge created for these edits (e.g. ~/.codex), removed again when empty at uninstall */
  createdDirs?: string[];
}

export interface ObserveApplyResult {
  record: ObserveHostRecord;
  diagnostics: Diagnostic[];
}

/** The observability half of one host adapter. */
export interface ObserveHostAdapter {
  readonly id: ObserveHostId;
  readonly displayName: string;
  detect(ctx: ObserveContext): Promise<HostDetection>;
  /** what the host sends to the observer once applied (for `sf observe install`'s explanation) */
  readonly signal: string;
  /** the fidelity the host's skill evidence gets, and any blind spot */
  readonly fidelity: string;
  /** the files `apply` writes for `ctx` (config, plugin): the directories it creates for them are recorded */
  targets(ctx: ObserveContext): string[];
  /** installs or re-applies Forge's settings, merging into the user's config (idempotent) */
  apply(ctx: ObserveContext, previous?: ObserveHostRecord): Promise<ObserveApplyResult>;
  /** removes exactly what `record` says Forge put there; an error diagnostic means some of it is still in place (the host stays recorded) */
  remove(ctx: ObserveContext, record: ObserveHostRecord): Promise<Diagnostic[]>;
  /** drift: settings or files missing, changed or replaced by another installer */
  diagnose(ctx: ObserveContext, record: ObserveHostRecord | undefined): Promise<Diagnostic[]>;
}
