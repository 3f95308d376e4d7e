import { recordScopeKey } from '../library/types.js';
import { crashPoint } from '../fs/crash-point.js';
import type { Library } from '../library/db.js';
import { appendOutbox, outboxEventIds } from '../library/outbox.js';
import { ensureStored, hasStoreEntry, removeStoreEntry, storedEntryChanges, type ModifiedEntry, type StagedEntry } from '../library/store.js';
import type { InstallationRecord, IntentRecord } from '../library/types.js';
import { diskFullAt, SfError } from '../errors/index.js';
import { fullestOf } from '../fs/free-space.js';
import type { SkitHashes } from '../skit/hash.js';
import { hostContext, type Session } from './context.js';
import type { ConfigEdit, ProjectionRecord } from './host-adapter.js';
import { noteConfigEdit, updateIntent } from './journal.js';
import { trace } from '../trace/startup.js';
import type { Plan, Step } from './plan-types.js';

/** The release being installed, available while the command that prepared it runs (not in recovery). */
export interface LiveRelease {
  sourceRoot: string;
  hashes: SkitHashes;
  /** its store entry, already written into staging (see runMutation) */
  staged?: StagedEntry | null;
}

/**
 * Executes a plan step by step under its journal intent, then commits: records + outbox events,
 * then deletes store entries nothing references any more. Every step is idempotent, so recovery
 * can run the same plan again from the start after a crash (`replay`). Crash points
 * (`SF_CRASH_AT=<op>:after-<step>`) let tests kill the process between any two steps.
 */
export async function applyPlan(
  session: Session,
  lib: Library,
  intent: IntentRecord<Plan>,
  release: LiveRelease | null,
  replay = false,
): Promise<InstallationRecord | null> {
  const plan = intent.plan;
  if (!plan) throw new SfError('SF_E_INTERNAL', `intent ${intent.id} has no plan`);
  const op = plan.op;
  let current = intent;
  if (current.phase !== 'committing') {
    if (current.phase !== 'applying') current = updateIntent(lib, current, 'applying');
    crashPoint(`${op}:after-intent`);
    const results = new Map<string, ProjectionRecord>();
    const noteEdit = (agent: string, edit: ConfigEdit) => {
      current = noteConfigEdit(lib, current, agent, edit);
    };
    for (const step of plan.steps) {
      if (step.kind !== 'store') await runStep(session, step, results, op, noteEdit);
      else {
        const replaced = await storeRelease(session, step.bundleHash, release, op);
        if (replaced) plan.notes.push(replacedNote(plan.skitId, replaced));
      }
    }
    const after = plan.after ? { ...plan.after, targets: plan.after.targets.map((t) => results.get(t.agent) ?? t) } : null;
    current = updateIntent(lib, current, 'committing', { ...current.plan!, after });
    crashPoint(`${op}:after-committing`);
  }
  return commitPlan(session, lib, current, replay);
}

/**
 * The store step. The staged entry replaces one someone changed through a linked skill directory
 * (see stageStoreEntry): returns that one (moved aside), else null. Recovery has no staged entry
 * and no source: an existing entry that differs from its manifest is refused (SF_E_MODIFIED), so
 * the interrupted command is rolled back instead of projecting someone's edits elsewhere.
 */
async function storeRelease(session: Session, bundleHash: string, release: LiveRelease | null, op: string): Promise<ModifiedEntry | null> {
  const staged = release?.staged;
  let replaced: ModifiedEntry | null = null;
  if (!release) await assertEntryIntact(session, bundleHash);
  else if (staged?.replaces || !(await hasStoreEntry(session.paths, bundleHash))) {
    session.progress('storing the release');
    if (!staged) await ensureStored(session.paths, release.sourceRoot, release.hashes);
    else if ((await staged.publish()) === 'replaced') replaced = staged.replaces ?? null;
  }
  trace('stored');
  crashPoint(`${op}:after-store`);
  return replaced;
}

/** Without the release's source, only an entry that is there and matches its manifest can be projected. */
async function assertEntryIntact(session: Session, bundleHash: string): Promise<void> {
  const changed = await storedEntryChanges(session.paths, bundleHash);
  if (!changed) throw new SfError('SF_E_LIBRARY', `the release ${bundleHash} is not in the store and its source is gone`, { hint: 'run the command again' });
  if (changed.length > 0) {
    throw new SfError('SF_E_MODIFIED', `the store entry of ${bundleHash} was changed (${shortList(changed)}), probably by editing through a linked skill directory`, {
      hint: 'run the command again: it rebuilds the entry from the source and keeps the changed files in backups/store',
    });
  }
}

const shortList = (paths: readonly string[]) => paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, and ${paths.length - 5} more` : '');

/** What the user must hear when a changed store entry was replaced: what changed, and where it is kept. */
function replacedNote(skitId: string, modified: ModifiedEntry): string {
  const kept = modified.keptAt ? `The changed files were copied to ${modified.keptAt}: copy from there what you want to keep` : 'By then nothing differed any more, so nothing was kept';
  return `${skitId}: its store entry ${modified.entry} had been changed, probably by editing through a linked skill directory (${shortList(modified.changed)}); it was rebuilt from the source, so every project using this release sees the release as published again. ${kept}`;
}

async function runStep(
  session: Session,
  step: Exclude<Step, { kind: 'store' }>,
  results: Map<string, ProjectionRecord>,
  op: string,
  noteEdit: (agent: string, edit: ConfigEdit) => void,
): Promise<void> {
  try {
    await runStepIn(session, step, results, op, noteEdit);
  } catch (e) {
    throw diskFullOfStep(session, step.target, e);
  }
}

/**
 * A full disk met by a step, naming the place that is full: the step writes skill directories
 * (the project, or the agent's directory), host configs (the project, or the home directory) and
 * config backups ($SF_HOME), which may be three filesystems; an fd-based write's error names none.
 * The fullest of them is the one the write found full.
 */
function diskFullOfStep(session: Session, target: Exclude<Step, { kind: 'store' }>['target'], e: unknown): unknown {
  const places = [
    target.scope === 'project' && target.projectRoot ? { place: `the project ${target.projectRoot}`, path: target.projectRoot } : { place: `the ${target.agent} skill directory ${target.skillRoot}`, path: target.skillRoot },
    { place: `your home directory (${session.home})`, path: session.home },
    { place: `$SF_HOME (${session.paths.home})`, path: session.paths.home },
  ];
  const full = places[fullestOf(places.map((p) => p.path))];
  return diskFullAt(e, full.place, full.path) ?? e;
}

async function runStepIn(
  session: Session,
  step: Exclude<Step, { kind: 'store' }>,
  results: Map<string, ProjectionRecord>,
  op: string,
  noteEdit: (agent: string, edit: ConfigEdit) => void,
): Promise<void> {
  const adapter = session.adapters.get(step.target.agent);
  const agent = step.target.agent;
  const ctx = { ...hostContext(session, agent, step.target.scope, step.target.projectRoot), onConfigEdit: (edit: ConfigEdit) => noteEdit(agent, edit) };
  if (step.kind === 'project') {
    session.progress(`projecting into ${step.target.skillRoot} (${step.target.agent})`);
    results.set(step.target.agent, await adapter.project(step.request, ctx, step.record));
    trace(`projected (${step.target.agent})`);
    crashPoint(`${op}:after-project`);
  } else if (step.kind === 'enablement') {
    const changed = await adapter.setEnablement(step.request, step.record, ctx);
    // the user's entries stay recorded as Forge's places: doctor names them until they are moved
    results.set(step.target.agent, step.keep ? { ...changed, paths: [...changed.paths, ...step.keep] } : changed);
    crashPoint(`${op}:after-enablement`);
  } else {
    await adapter.unproject(step.record, ctx);
    crashPoint(`${op}:after-unproject`);
  }
}

/**
 * Appends the plan's events (once), collects garbage, commits the records and drops the intent.
 * Garbage goes while the claim is still held (judged by the records as they are about to be): once
 * the claim is released, another command may link a store entry this one would still delete.
 * Interrupted after the collection, recovery rolls the commit forward, so no record is left
 * pointing at a deleted entry.
 */
async function commitPlan(session: Session, lib: Library, intent: IntentRecord<Plan>, replay: boolean): Promise<InstallationRecord | null> {
  const plan = intent.plan!;
  const present = replay ? await outboxEventIds(session.paths) : new Set<string>();
  appendOutbox(session.paths, plan.events.filter((e) => !present.has(e.event_id)));
  trace('outbox appended');
  crashPoint(`${plan.op}:after-outbox`);
  await collectGarbage(session, lib, plan.gcCandidates, { scopeKey: plan.scopeKey, replaced: plan.before?.skitId, added: plan.after?.bundleHash }, intent.id);
  lib.commit({
    ...(plan.after ? { put: [plan.after] } : {}),
    ...(plan.before && (!plan.after || plan.after.skitId !== plan.before.skitId) ? { delete: [[plan.scopeKey, plan.before.skitId] as [string, string]] } : {}),
    deleteIntent: intent.id,
  });
  trace('committed');
  crashPoint(`${plan.op}:after-commit`);
  return plan.after;
}

/** The records change a plan is about to commit: the installation it replaces or removes, and the bundle it adds. */
export interface PendingCommit {
  scopeKey: string;
  replaced?: string;
  added?: string;
}

/**
 * Deletes store entries no installation references (as the records will be after `pending`, when
 * given), nor the plan of another intent (`self` is the caller's own): an interrupted command
 * whose recovery failed still needs its releases to be finished or undone later.
 */
export async function collectGarbage(session: Session, lib: Library, candidates: readonly string[], pending: PendingCommit | undefined, self: string): Promise<string[]> {
  if (candidates.length === 0) return [];
  const kept = lib.listInstallations().filter((i) => !(pending && i.skitId === pending.replaced && recordScopeKey(i) === pending.scopeKey));
  const used = new Set([...kept.map((i) => i.bundleHash), ...(pending?.added ? [pending.added] : []), ...bundlesOfIntents(lib, self)]);
  const removed: string[] = [];
  for (const hash of candidates) {
    if (used.has(hash)) continue;
    await removeStoreEntry(session.paths, hash);
    removed.push(hash);
  }
  return removed;
}

/** The releases the plans of intents other than `self` name (before and after). */
export function bundlesOfIntents(lib: Library, self?: string): string[] {
  return lib.listIntents().filter((i) => i.id !== self).flatMap((i) => {
    const plan = (i as IntentRecord<Plan>).plan;
    return [plan?.before?.bundleHash, plan?.after?.bundleHash].filter((h): h is string => typeof h === 'string');
  });
}
