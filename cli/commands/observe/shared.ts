import { join } from 'node:path';
import type { Diagnostic, SfError } from '../../../core/errors/index.js';
import type { ObserveConfig } from '../../../core/observer/config.js';
import type { ObserverPaths } from '../../../core/observer/paths.js';
import type { ObserveInstallRecord } from '../../../adapters/observe/record.js';
import type { ObserveContext } from '../../../adapters/observe/types.js';
import { err, out, printDiagnostics } from '../../output/print.js';
import { sanitize } from '../../output/style.js';

/** Everything an `sf observe` subcommand starts from: paths, the observe config and the install record. */
export interface ObserveState {
  env: NodeJS.ProcessEnv;
  paths: ObserverPaths;
  config: ObserveConfig;
  /** lenient loading only: why config.json could not be used (`config` is then the defaults) */
  configProblem?: SfError;
  record?: ObserveInstallRecord;
  ctx: ObserveContext;
}

/**
 * Loads the state; modules are imported here, not at CLI start-up (see cli/commands/index.ts).
 * `lenient`: a config.json that does not parse or validate does not stop the command (the ways
 * out, `uninstall` and `destination remove`, need only the install record or the raw file); the
 * hosts' port is then the one the install record has.
 */
export async function loadObserveState(env: NodeJS.ProcessEnv = process.env, port?: number, { lenient = false } = {}): Promise<ObserveState> {
  const [{ readObserveConfig, readObserveConfigLeniently }, { observerPaths }, { readInstallRecord }, { observeContext }] = await Promise.all([
    import('../../../core/observer/config.js'), import('../../../core/observer/paths.js'), import('../../../adapters/observe/record.js'), import('../../../adapters/observe/registry.js'),
  ]);
  const paths = observerPaths(env);
  const { config, problem } = lenient ? await readObserveConfigLeniently(paths.config) : { config: await readObserveConfig(paths.config), problem: undefined };
  const record = await readInstallRecord(paths.home);
  const hostsPort = port ?? (problem ? record?.port ?? config.receiver.port : config.receiver.port);
  return { env, paths, config, ...(problem ? { configProblem: problem } : {}), record, ctx: observeContext(env, hostsPort) };
}

/**
 * Runs an observe command that changes the setup (`applying`) holding $SF_HOME/observe/.lock:
 * install, update and uninstall read install.json, edit the hosts and write it back as one change,
 * so two at once would lose a host from the record (and uninstall would leave its settings).
 */
export async function observeMutation<T>(applying: boolean, fn: () => Promise<T>): Promise<T> {
  if (!applying) return fn();
  const [{ observerPaths }, { withFileLock }, { mkdir }] = await Promise.all([import('../../../core/observer/paths.js'), import('../../../core/fs/file-lock.js'), import('node:fs/promises')]);
  const dir = join(observerPaths(process.env).home, 'observe');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withFileLock(join(dir, '.lock'), fn, { what: 'the observability setup', waitMs: 60_000 });
}

/** Prints findings to stderr (errors and warnings) in the usual diagnostic shape. */
export function reportDiagnostics(diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.length) printDiagnostics(diagnostics, 'stderr', '(observer)');
}

/** Lines of text, sanitized. */
export function lines(text: readonly string[]): void {
  for (const l of text) out(sanitize(l));
}

/** A note that the running observer reads its config at start. */
export function restartNote(running: boolean): void {
  if (running) err('note: the running observer reads its configuration at start; restart it to apply (systemctl --user restart sf-observer, or stop and start `sf observe daemon`)');
}
