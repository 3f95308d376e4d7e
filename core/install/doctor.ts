import { withGitRef, type ResolveOptions } from '../sources/index.js';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { hasErrno, isSfError, SfError, type Diagnostic } from '../errors/index.js';
import { dataDirFinding, filesystemOf } from '../fs/filesystem-kind.js';
import { Library } from '../library/db.js';
import { bundleHex } from '../library/paths.js';
import { ensureStored, removeStoreEntry, storeBackups } from '../library/store.js';
import { recordScopeKey, type InstallationRecord, type IntentRecord } from '../library/types.js';
import { hostContext, projectRootGone, type Session } from './context.js';
import { shellArg } from './find-installation.js';
import { checkStoreEntry, rebuildStoreEntry } from './doctor-store.js';
import { crossHostExposure } from './cross-host.js';
import { checkConfigTemps } from './doctor-temp.js';
import { replacedPaths } from './survey.js';
import { NOT_REPAIRABLE, repairsAmong } from './repairs.js';
import { abandonIntent, beginMutation, claimWait, intentHolderAlive, intentSubject } from './journal.js';
import { bundlesOfIntents } from './apply.js';
import type { Plan } from './plan-types.js';
import type { ProjectionRecord } from './host-adapter.js';
import { cleanScratch, recoverIntent, scratchLeftovers } from './recover.js';
import { describeMove, sharedRootConflicts } from './plan-checks.js';
import { aroundTheirs, expectedPaths, requestFor, specOf, targetShapes, type TargetShape } from './requests.js';

/** "an install", "an update", "a remove" */
const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

/** One doctor finding: a diagnostic with the installation and agent it concerns. */
export interface DoctorFinding extends Diagnostic {
  skitId?: string;
  agent?: string;
  scope?: string;
  fixed?: boolean;
}

export interface DoctorReport {
  findings: DoctorFinding[];
  /** no error or warning is left unfixed */
  clean: boolean;
}

/** Codes whose repair would overwrite something the user made; --fix leaves them unless --force. */
const NEEDS_FORCE = new Set(['SF_DRIFT_MODIFIED', 'SF_DRIFT_STORE_CORRUPT']);
/** A project root that is no longer there (deleted, moved, a removed worktree). */
export const PROJECT_GONE = 'SF_DRIFT_PROJECT_GONE';

/**
 * `sf skit doctor [--fix] [--force]`: interrupted commands, store entries (missing, modified,
 * unreferenced), every target's projection (adapters' `diagnose`: missing, dangling, wrong links,
 * modified copies, foreign entries, config drift, disabled skills exposed), agents that share one
 * directory but need different skills there (SF_E_CONFLICT, never repaired) and scratch leftovers.
 * With `fix`, interrupted commands are recovered and everything is repaired that does not
 * overwrite local edits (those need `force`).
 */
export interface DoctorOptions {
  fix: boolean;
  force: boolean;
  /** resolvers for sources beyond the built-in ones (the hub), to fetch a lost store entry again */
  resolvers?: ResolveOptions['resolvers'];
}

export async function runDoctor(given: Session, options: DoctorOptions): Promise<DoctorReport> {
  // the skill roots every installation's checks scan are read once for the whole pass (HostContext.memo)
  const session: Session = { ...given, memo: new Map() };
  const lib = await Library.open(session.paths, { create: false, readOnly: !options.fix });
  const findings: DoctorFinding[] = [];
  const home = dataDirFinding(session.paths.home, filesystemOf(session.paths.home));
  if (home) findings.push(home);
  if (!lib) {
    // nothing installed yet, but an interrupted first install may have left its download
    findings.push(...(await checkScratch(session, options.fix)));
    return { findings, clean: isClean(findings) };
  }
  let claim: IntentRecord<Plan> | null = null;
  try {
    if (options.fix) {
      claim = await beginMutation(lib, 'repair', session.newId(), session.now(), async (intent, stale) => {
        const outcome = await recoverIntent(session, lib, intent);
        findings.push({ code: 'SF_DRIFT_INTERRUPTED', severity: 'error', message: `an interrupted ${stale.op} (pid ${stale.pid}) was ${outcome}`, fixed: true });
      }, claimWait(session), (u) => {
        // the rest of the pass goes on; this one stays for a later --fix
        findings.push({ code: 'SF_DRIFT_INTERRUPTED', severity: 'error', message: u.error.message, ...(u.error.hint ? { hint: u.error.hint } : {}), ...(u.intent.plan ? { skitId: u.intent.plan.skitId, scope: u.intent.plan.scopeKey } : {}) });
      });
    } else {
      for (const i of lib.listIntents()) {
        const live = intentHolderAlive(i);
        findings.push({
          code: 'SF_DRIFT_INTERRUPTED',
          severity: live ? 'info' : 'error',
          message: live
            ? `${article(i.op)} ${i.op} is in progress (pid ${i.pid})`
            : i.phase === 'rolling-back'
              ? `${article(i.op)} ${i.op} started ${i.startedAt} failed and could not be undone completely`
              : `${article(i.op)} ${i.op} started ${i.startedAt} was interrupted (pid ${i.pid} is gone)`,
          hint: live ? undefined : i.phase === 'rolling-back' ? 'fix what its error named, then run `sf skit doctor --fix` to undo the rest' : 'run `sf skit doctor --fix` to finish or undo it',
        });
      }
    }
    const installations = lib.listInstallations();
    // interrupted commands still to be recovered (with --fix: those whose recovery failed just now)
    const pending = lib.listIntents().filter((i) => i.id !== claim?.id && (options.fix || !intentHolderAlive(i))) as IntentRecord<Plan>[];
    const check = async (inst: InstallationRecord) => {
      const intent = pending.find((i) => i.plan?.skitId === inst.skitId && i.plan.scopeKey === recordScopeKey(inst));
      if (!intent) return checkInstallation(session, lib, inst, options);
      // what the interrupted command left half-done is its recovery's to finish or undo: a repair
      // by doctor or by hand (deleting an entry it calls unreferenced) could take what it needs
      return (await checkInstallation(session, lib, inst, { ...options, fix: false })).map((f) => (NOT_REPAIRABLE.has(f.code) || f.code === PROJECT_GONE ? f : { ...f, hint: pendingHint(intent, options.fix) }));
    };
    // checks only read, so they run concurrently (I/O bound); repairs write and stay sequential
    const results = options.fix ? await sequential(installations, check) : await pooled(installations, 16, check);
    for (const r of results) findings.push(...r);
    findings.push(...(await checkLeftovers(session, lib, options.fix)));
  } finally {
    if (claim) abandonIntent(lib, claim);
    await lib.close();
  }
  return { findings, clean: isClean(findings) };
}

/** What resolves a finding about an installation whose interrupted command is still to be recovered. */
function pendingHint(intent: IntentRecord<Plan>, triedNow: boolean): string {
  const what = `the interrupted ${intent.plan?.op ?? intent.op} of ${intentSubject(intent) ?? 'this installation'}`;
  return triedNow
    ? `this follows from ${what}, which could not be recovered yet: fix what its SF_DRIFT_INTERRUPTED finding names, then \`sf skit doctor --fix\` recovers it and resolves this (do not repair it by hand)`
    : `this follows from ${what}: \`sf skit doctor --fix\` recovers it and resolves this (do not repair it by hand)`;
}

const isClean = (findings: readonly DoctorFinding[]) => !findings.some((f) => !f.fixed && (f.severity === 'error' || f.severity === 'warning'));

async function sequential<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) out.push(await fn(item));
  return out;
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
async function pooled<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function checkInstallation(session: Session, lib: Library, inst: InstallationRecord, options: DoctorOptions): Promise<DoctorFinding[]> {
  const about = { skitId: inst.skitId, scope: recordScopeKey(inst) };
  // nothing of a gone project is checked or repaired: every repair would create its directory again
  if (inst.scope === 'project' && inst.projectRoot && projectRootGone(inst.projectRoot)) return [projectGoneFinding(inst)];
  const store = await checkStoreEntry(session.paths, inst);
  const findings: DoctorFinding[] = store.diagnostics.map((d) => ({ ...d, ...about }));
  let storeBroken = findings.length > 0;
  if (options.fix && storeBroken && (options.force || !findings.some((f) => NEEDS_FORCE.has(f.code)))) {
    const failure = await repairStore(session, inst, store, options.resolvers);
    session.memo?.clear();
    for (const f of findings) f.fixed = failure === null;
    storeBroken = failure !== null;
    if (failure) {
      findings.push({ code: 'SF_DOCTOR_FIX_FAILED', severity: 'error', ...about, message: `could not restore the store entry of ${inst.skitId}: ${failure.message}`, ...(failure.hint ? { hint: failure.hint } : {}) });
    }
  }
  let targets = inst.targets;
  const shapes = targetShapes(session, inst.targets);
  const conflicts = sharedDirConflicts(inst, session.paths.store, shapes);
  const held = heldByConflicts(conflicts);
  for (const e of conflicts) findings.push({ code: e.code, severity: 'error', ...about, message: e.message, ...(e.location?.file ? { file: e.location.file } : {}), ...(e.hint ? { hint: e.hint } : {}) });
  for (const record of inst.targets) {
    const adapter = session.adapters.get(record.agent);
    const ctx = hostContext(session, record.agent, record.scope, record.projectRoot);
    const request = requestFor(inst, record.agent, session.paths.store, shapes);
    const conflicting = held.get(record.agent);
    // the host reads elsewhere now: said, never repaired (`update` moves it); the checks and repairs
    // below stay where the installation is recorded, so nothing is half-applied into the new place
    const move = adapter.moved?.(record, ctx);
    if (move) findings.push({ code: 'SF_DRIFT_HOST_MOVED', severity: 'warning', ...about, agent: record.agent, file: move.current, ...describeMove(inst, move) });
    // what a conflict causes (its skill missing for one agent, exposed to the other) is that conflict
    const drift = (await adapter.diagnose(request, record, ctx))
      .filter((d) => !(conflicting && d.file && conflicting.has(basename(d.file))))
      .map((d): DoctorFinding => ({ ...d, ...about, agent: record.agent }));
    findings.push(...drift);
    // links into a store entry that is not there would only dangle again: not repaired, not called fixed;
    // agents that disagree in one directory: a repair for one undoes the other's, so neither is made
    const repairs = repairsAmong(drift);
    if (!options.fix || repairs.length === 0 || storeBroken || conflicting) continue;
    if (!options.force && repairs.some((d) => NEEDS_FORCE.has(d.code))) continue;
    // the user's entries are left out of the repair, so it can go ahead around them
    const around = aroundTheirs(request, record, replacedPaths(record.paths, session.paths.store));
    // with the recorded target, so the adapter knows which config entries are Forge's to restore
    let fixed: ProjectionRecord;
    try {
      // what was read before this repair writes is not what the next checks must see
      session.memo?.clear();
      const repaired = await adapter.setEnablement(around.request, around.record, ctx);
      // a replaced entry stays recorded as Forge's place: doctor keeps naming it until the user moves it
      fixed = { ...repaired, paths: [...repaired.paths, ...around.keep] };
    } catch (e) {
      // one repair the user must make (a conflicting entry of theirs) does not stop the others
      if (!isSfError(e)) throw e;
      findings.push({ code: 'SF_DOCTOR_FIX_FAILED', severity: 'error', ...about, agent: record.agent, message: `could not repair ${inst.skitId} for ${record.agent}: ${e.message}`, ...(e.location?.file ? { file: e.location.file } : {}), ...(e.hint ? { hint: e.hint } : {}) });
      continue;
    }
    targets = targets.map((t) => (t.agent === record.agent ? fixed : t));
    // fixed is what the repair made go away, checked again: a finding it could not mend stays open
    session.memo?.clear();
    const left = new Set((await adapter.diagnose(request, fixed, ctx)).map(findingKey));
    for (const d of repairs) if (!left.has(findingKey(d))) d.fixed = true;
  }
  if (targets !== inst.targets) lib.commit({ put: [{ ...inst, targets, updatedAt: session.now() }] });
  for (const d of await crossHostExposure(session, inst)) findings.push({ ...d, ...about });
  return findings;
}

const findingKey = (d: Diagnostic) => `${d.code}\u0000${d.file ?? ''}\u0000${d.message}`;

/** SF_DRIFT_PROJECT_GONE: said once per installation, with the command that forgets it. */
function projectGoneFinding(inst: InstallationRecord): DoctorFinding {
  const root = inst.projectRoot!;
  const agents = inst.targets.map((t) => t.agent).join(', ') || 'no agent';
  return {
    code: PROJECT_GONE,
    severity: 'warning',
    message: `the project ${root} is gone (deleted or moved); ${inst.skitId} is still recorded there for ${agents}, and doctor neither checks nor recreates it`,
    file: root,
    hint: `\`sf skit remove ${inst.skitId} --project ${shellArg(root)}\` forgets it (and takes its entries out of config files outside the project); if the project moved, install the SKIT again from its new place`,
    skitId: inst.skitId,
    scope: recordScopeKey(inst),
  };
}

/**
 * A finding with its keys in the order docs/cli-json.md lists them (code, severity, message,
 * file, hint, skitId, agent, scope, fixed), then the ones some diagnostics add (line, column,
 * errorCode); keys without a value are left out.
 */
export function orderedFinding(f: DoctorFinding): DoctorFinding {
  const order = ['code', 'severity', 'message', 'file', 'hint', 'skitId', 'agent', 'scope', 'fixed', 'line', 'column', 'errorCode'] as const;
  const out: Record<string, unknown> = {};
  for (const k of order) if (f[k] !== undefined) out[k] = f[k];
  for (const [k, v] of Object.entries(f)) if (!(k in out) && v !== undefined) out[k] = v;
  return out as unknown as DoctorFinding;
}

/** Agents of `inst` that share one directory, by name or through a link, but need different skills there. */
function sharedDirConflicts(inst: InstallationRecord, storeRoot: string, shapes: readonly TargetShape[]): SfError[] {
  return sharedRootConflicts(inst.targets.map((record, i) => {
    const target = specOf(record, shapes[i].nativeEnablement);
    return { target, skillIds: new Set(expectedPaths(target, requestFor(inst, record.agent, storeRoot, shapes)).map((p) => p.skillId)) };
  }));
}

/** Agent -> names of the skills the conflicts of its shared directory concern. */
function heldByConflicts(conflicts: readonly SfError[]): Map<string, Set<string>> {
  const held = new Map<string, Set<string>>();
  for (const e of conflicts) {
    const names = (e.data?.skills as string[]).map((id) => id.slice(id.lastIndexOf(':') + 1));
    for (const agent of e.data?.agents as string[]) held.set(agent, new Set([...(held.get(agent) ?? []), ...names]));
  }
  return held;
}

/**
 * Rebuilds a damaged store entry from its intact release tree, or fetches the source again.
 * Returns null when repaired, else why not (the source is gone, or now holds another bundle).
 */
async function repairStore(session: Session, inst: InstallationRecord, store: Awaited<ReturnType<typeof checkStoreEntry>>, resolvers?: ResolveOptions['resolvers']): Promise<SfError | null> {
  if (store.manifest && store.releaseIntact) {
    await rebuildStoreEntry(session.paths, inst, store.manifest);
    return null;
  }
  try {
    const { prepareRelease } = await import('./prepare.js');
    // the exact release recorded: a hub version or a git commit (the source's latest may be another bundle)
    const git = inst.source.kind === 'git' && inst.release.commit !== undefined;
    const source = git ? withGitRef(inst.source.canonical, inst.release.commit!) : inst.source.canonical;
    const prep = await prepareRelease(session, source, { version: git ? undefined : inst.release.version, resolvers });
    try {
      if (prep.hashes.bundle !== inst.bundleHash) {
        return new SfError('SF_E_CONFLICT', `its source ${inst.source.canonical} now holds another release (${prep.hashes.bundle.slice(0, 19)}...)`, {
          hint: `run \`sf skit update ${inst.skitId}\` to move to what the source holds now`,
        });
      }
      await removeStoreEntry(session.paths, inst.bundleHash);
      await ensureStored(session.paths, prep.sourceRoot, prep.hashes);
      return null;
    } finally {
      await prep.cleanup();
    }
  } catch (e) {
    // the source is gone or changed: the entry cannot be rebuilt; the finding stays unfixed
    if (isSfError(e)) return e;
    throw e;
  }
}

/** Unreferenced store entries and scratch left by interrupted commands. */
async function checkLeftovers(session: Session, lib: Library, fix: boolean): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  // an interrupted command's releases are its recovery's to keep or delete
  const used = new Set([...lib.listInstallations().map((i) => i.bundleHash), ...bundlesOfIntents(lib)].map(bundleHex));
  let entries: string[] = [];
  try {
    entries = await readdir(session.paths.store);
  } catch (e) {
    if (!hasErrno(e, 'ENOENT')) throw e;
  }
  for (const name of entries) {
    if (name === '.staging' || used.has(name)) continue;
    const finding: DoctorFinding = { code: 'SF_DRIFT_STORE_UNREFERENCED', severity: 'warning', file: join(session.paths.store, name), message: `store entry ${name.slice(0, 12)} is not used by any installation`, hint: 'run `sf skit doctor --fix` to delete it' };
    if (fix) {
      await removeStoreEntry(session.paths, `sha256:${name}`);
      finding.fixed = true;
    }
    findings.push(finding);
  }
  findings.push(...(await checkScratch(session, fix)));
  findings.push(...(await checkConfigTemps(session, lib, fix)));
  findings.push(...(await checkStoreBackups(session)));
  return findings;
}

/** What installs kept of replaced store entries: never deleted by Forge, so the user hears what they cost. */
async function checkStoreBackups(session: Session): Promise<DoctorFinding[]> {
  const kept = await storeBackups(session.paths);
  if (kept.entries === 0) return [];
  const size = kept.bytes < 1024 ? `${kept.bytes} bytes` : kept.bytes < 1024 ** 2 ? `${(kept.bytes / 1024).toFixed(1)} KiB` : `${(kept.bytes / 1024 ** 2).toFixed(1)} MiB`;
  return [{
    code: 'SF_STORE_BACKUPS',
    severity: 'info',
    file: kept.dir,
    message: `${kept.entries} changed store entr${kept.entries === 1 ? 'y' : 'ies'} kept (${size}): edits made through linked skill directories, set aside when an install rebuilt the entry`,
    hint: `copy what you want to keep from ${kept.dir}, then delete it: rm -rf '${kept.dir}' (Forge never deletes it)`,
  }];
}

/**
 * Scratch that interrupted commands left ($SF_HOME/tmp, store staging). Safe to delete under the
 * journal claim, or when there is no library yet: no command stages a store entry before it has
 * created the library, and a fetch in progress is recognised by its live pid.
 */
async function checkScratch(session: Session, fix: boolean): Promise<DoctorFinding[]> {
  const scratch = await scratchLeftovers(session.paths);
  if (scratch.length === 0) return [];
  const finding: DoctorFinding = { code: 'SF_DRIFT_STAGING_LEFTOVER', severity: 'warning', message: `interrupted commands left ${scratch.length} scratch entr${scratch.length === 1 ? 'y' : 'ies'} in ${session.paths.home}`, hint: 'run `sf skit doctor --fix`' };
  if (fix) {
    await cleanScratch(session);
    finding.fixed = true;
  }
  return [finding];
}

