import { rmdir, stat } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { fromSystemError, isSfError, type Diagnostic } from '../../core/errors/index.js';
import { OBSERVE_ADAPTERS, observeAdapter } from './registry.js';
import type { ObserveContext, ObserveHostAdapter, ObserveHostId, ObserveHostRecord } from './types.js';

/**
 * Applying, removing and diagnosing the observability adapters of several hosts. One host's
 * refusal (a user setting Forge will not overwrite, an unparsable config) never stops the
 * others: it comes back as an error diagnostic naming the host, and that host keeps its
 * previous record (or none).
 */

export interface HostOutcome {
  agent: ObserveHostId;
  displayName: string;
  status: 'applied' | 'failed' | 'removed' | 'absent';
  evidence?: string[];
  diagnostics: Diagnostic[];
}

export type HostRecords = Partial<Record<ObserveHostId, ObserveHostRecord>>;

function failure(a: ObserveHostAdapter, thrown: unknown): Diagnostic[] {
  // a failed system call (ENOTDIR where a config directory should be, EACCES, ...) is this host's
  // problem like any refusal: the other hosts go on, and what they changed is recorded
  const e = fromSystemError(thrown) ?? thrown;
  if (!isSfError(e)) throw e;
  const file = e.location?.file;
  return [{ code: 'SF_OBSERVE_HOST_FAILED', severity: 'error', ...(file ? { file } : {}), errorCode: e.code, message: `${a.displayName}: ${e.message}`, ...(e.hint ? { hint: e.hint } : {}) }];
}

/** The adapters to install: the given ones, or every host detected on this machine. */
export async function chooseHosts(ctx: ObserveContext, chosen: ObserveHostAdapter[] | undefined): Promise<{ adapter: ObserveHostAdapter; evidence: string[]; present: boolean }[]> {
  const out = [];
  for (const adapter of chosen ?? OBSERVE_ADAPTERS) {
    const d = await adapter.detect(ctx);
    if (chosen || d.present) out.push({ adapter, evidence: d.evidence, present: d.present });
  }
  return out;
}

/** Applies each adapter, merging into the records. */
export async function applyHosts(
  ctx: ObserveContext,
  adapters: ObserveHostAdapter[],
  records: HostRecords,
  /** persists the records after each host's edit, so a later failure or a kill leaves them recorded for uninstall */
  persist?: (records: HostRecords) => Promise<void>,
): Promise<{ records: HostRecords; outcomes: HostOutcome[] }> {
  const next: HostRecords = { ...records };
  const outcomes: HostOutcome[] = [];
  for (const a of adapters) {
    try {
      const missing = await missingDirs(a.targets(ctx), ctx.home);
      const { record, diagnostics } = await a.apply(ctx, records[a.id]);
      const createdDirs = await dirsCreated(missing, records[a.id]?.createdDirs);
      next[a.id] = createdDirs.length > 0 ? { ...record, createdDirs } : record;
      await persist?.(next);
      outcomes.push({ agent: a.id, displayName: a.displayName, status: diagnostics.some((d) => d.severity === 'error') ? 'failed' : 'applied', diagnostics });
    } catch (e) {
      outcomes.push({ agent: a.id, displayName: a.displayName, status: 'failed', diagnostics: failure(a, e) });
    }
  }
  return { records: next, outcomes };
}

/** Removes what the records say Forge put in each host (all recorded hosts when `ids` is undefined). */
export async function removeHosts(ctx: ObserveContext, records: HostRecords, ids?: ObserveHostId[]): Promise<{ records: HostRecords; outcomes: HostOutcome[] }> {
  const next: HostRecords = { ...records };
  const outcomes: HostOutcome[] = [];
  for (const id of ids ?? (Object.keys(records) as ObserveHostId[])) {
    const rec = records[id];
    const a = observeAdapter(id);
    if (!rec) {
      outcomes.push({ agent: id, displayName: a.displayName, status: 'absent', diagnostics: [] });
      continue;
    }
    try {
      const diagnostics = await a.remove(ctx, rec);
      // an error: some of Forge's settings are still in place; the host stays recorded, so a
      // later uninstall (once the user fixed what the error names) can finish it
      if (diagnostics.some((d) => d.severity === 'error')) {
        outcomes.push({ agent: id, displayName: a.displayName, status: 'failed', diagnostics });
        continue;
      }
      // deepest first; a directory that holds anything (the user's files) stays
      for (const dir of [...(rec.createdDirs ?? [])].sort((x, y) => y.length - x.length)) await rmdir(dir).catch(() => undefined);
      delete next[id];
      outcomes.push({ agent: id, displayName: a.displayName, status: 'removed', diagnostics });
    } catch (e) {
      outcomes.push({ agent: id, displayName: a.displayName, status: 'failed', diagnostics: failure(a, e) });
    }
  }
  return { records: next, outcomes };
}

/** Drift of every recorded host, plus hosts whose settings point at another port than the observer's. */
export async function diagnoseHosts(ctx: ObserveContext, records: HostRecords): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const [id, rec] of Object.entries(records) as [ObserveHostId, ObserveHostRecord][]) {
    const a = observeAdapter(id);
    if (rec.port !== ctx.port) {
      out.push({ code: 'SF_OBSERVE_STALE', severity: 'error', message: `${a.displayName} was set up for an observer on port ${rec.port}, but the observer's port is ${ctx.port}`, hint: 'run `sf observe update`' });
    }
    try {
      out.push(...(await a.diagnose(ctx, rec)));
    } catch (e) {
      out.push(...failure(a, e));
    }
  }
  return out;
}

const isDir = (dir: string) => stat(dir).then((s) => s.isDirectory(), () => false);

/** The directories below `home` on the way to `paths` that do not exist yet (looked at just before an apply). */
async function missingDirs(paths: readonly string[], home: string): Promise<string[]> {
  const out = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); dir !== home && dir.startsWith(`${home}${sep}`); dir = dirname(dir)) {
      if (await stat(dir).then(() => false, () => true)) out.add(dir);
    }
  }
  return [...out];
}

/**
 * The directories an apply created: those missing just before it that exist now (not ones the
 * user made before the install, however shortly before), plus those an earlier apply created
 * that still exist. Uninstall removes them when empty, so a host that was never installed is not
 * "detected" afterwards because its config directory is there.
 */
async function dirsCreated(missingBefore: readonly string[], earlier: readonly string[] = []): Promise<string[]> {
  const out = new Set<string>();
  for (const dir of [...earlier, ...missingBefore]) if (await isDir(dir)) out.add(dir);
  return [...out].sort();
}
