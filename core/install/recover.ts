import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import type { Library } from '../library/db.js';
import { hasStoreEntry } from '../library/store.js';
import type { IntentRecord } from '../library/types.js';
import { applyPlan } from './apply.js';
import type { Session } from './context.js';
import { stillRunningSince } from '../runtime/processes.js';
import { rollBack } from './rollback.js';
import { removeConfigTemps } from './recover-config-temps.js';
import type { Plan } from './plan-types.js';

export type RecoveryOutcome = 'discarded' | 'rolled-back' | 'rolled-forward';

/**
 * Finishes or undoes an interrupted mutation. Before its release was stored nothing visible had
 * changed, so the intent is dropped (the old state stands). Once the release is in the store the
 * plan is run again from the start (every step is idempotent) and committed (the new state); if
 * that fails, the old state is projected again. A command that reported failure but could not
 * undo itself (`rolling-back`) is only ever undone.
 *
 * First the temp copies of host configs that the interrupted command's atomic writes left are
 * deleted: its process is gone, so they are never renamed into place, and each is a full copy of a
 * user's config lying next to it (only Forge's exact pattern, next to configs a record or write
 * note names, whose writer is no longer running; see configTempLeftovers).
 */
export async function recoverIntent(session: Session, lib: Library, intent: IntentRecord<Plan>): Promise<RecoveryOutcome> {
  await removeConfigTemps(session, lib);
  const plan = intent.plan;
  if (!plan || intent.phase === 'planning') {
    lib.commit({ deleteIntent: intent.id });
    await cleanScratch(session);
    return 'discarded';
  }
  // a command that failed and could not undo itself: finish undoing it, never apply it after all
  if (intent.phase === 'rolling-back') {
    await rollBack(session, lib, intent);
    await cleanScratch(session);
    return 'rolled-back';
  }
  const store = plan.steps.find((s) => s.kind === 'store');
  if (intent.phase === 'applying' && store && !(await hasStoreEntry(session.paths, store.bundleHash))) {
    lib.commit({ deleteIntent: intent.id });
    await cleanScratch(session);
    return 'rolled-back';
  }
  try {
    await applyPlan(session, lib, intent, null, true);
  } catch (e) {
    if (intent.phase === 'committing') throw e;
    // a step that cannot be completed (e.g. a skill root became unwritable): restore the old state
    session.progress(`could not finish the interrupted ${plan.op} (${(e as Error).message}); rolling it back`);
    await rollBack(session, lib, intent);
    await cleanScratch(session);
    return 'rolled-back';
  }
  await cleanScratch(session);
  return 'rolled-forward';
}

/**
 * Store staging and fetched-source scratch that no running command owns: everything in them,
 * except entries of a command still running: `src-<pid>-*` (fetching happens before the journal
 * claim) and staging's `<bundle>.<pid>.<random>` (the command holding the claim is writing it; a
 * read-only doctor looks without the claim). A pid that now belongs to a process started after
 * the entry last changed is not the owner (pid reuse after a reboot).
 */
export async function scratchLeftovers(paths: Pick<Session['paths'], 'storeStaging' | 'tmp'>): Promise<string[]> {
  const out: string[] = [];
  for (const dir of [paths.storeStaging, paths.tmp]) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if (hasErrno(e, 'ENOENT')) continue;
      throw e;
    }
    for (const name of names) {
      const owner = /^src-(\d+)-/.exec(name) ?? /^[0-9a-f]+\.(\d+)\.[0-9a-f]+$/.exec(name);
      if (owner) {
        const changed = await lstat(join(dir, name)).then((st) => st.mtimeMs, () => Number.NaN);
        if (stillRunningSince(Number(owner[1]), changed)) continue;
      }
      out.push(join(dir, name));
    }
  }
  return out;
}

/** Removes the scratch that interrupted commands left (call only while holding the journal claim). */
export async function cleanScratch(session: Pick<Session, 'paths'>): Promise<string[]> {
  const removed = await scratchLeftovers(session.paths);
  for (const path of removed) await rm(path, { recursive: true, force: true });
  return removed;
}
