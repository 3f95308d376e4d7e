import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import type { Library } from '../library/db.js';
import { hasStoreEntry } from '../library/store.js';
import type { IntentRecord } from '../library/types.js';
import { applyPlan } from './apply.js';
import type { Session } from './context.js';
import { pidAlive } from '../runtime/processes.js';
import { rollBack } from './rollback.js';
import type { Plan } from './plan-types.js';

export type RecoveryOutcome = 'discarded' | 'rolled-back' | 'rolled-forward';

/**
 * Finishes or undoes an interrupted mutation. Before its release was stored nothing visible had
 * changed, so the intent is dropped (the old state stands). Once the release is in the store the
 * plan is run again from the start (every step is idempotent) and committed (the new state); if
 * that fails, the old state is projected again.
 */
export async function recoverIntent(session: Session, lib: Library, intent: IntentRecord<Plan>): Promise<RecoveryOutcome> {
  const plan = intent.plan;
  if (!plan || intent.phase === 'planning') {
    lib.commit({ deleteIntent: intent.id });
    await cleanScratch(session);
    return 'discarded';
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

/** Removes store staging and fetched-source scratch left by interrupted commands (call only while holding the journal claim). */
export async function cleanScratch(session: Pick<Session, 'paths'>): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of [session.paths.storeStaging, session.paths.tmp]) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if (hasErrno(e, 'ENOENT')) continue;
      throw e;
    }
    for (const name of names) {
      // a source being fetched by a live command (fetching happens before the claim) stays
      const owner = /^src-(\d+)-/.exec(name);
      if (owner && pidAlive(Number(owner[1]))) continue;
      await rm(join(dir, name), { recursive: true, force: true });
      removed.push(join(dir, name));
    }
  }
  return removed;
}
