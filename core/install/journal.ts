import { SfError } from '../errors/index.js';
import type { Library } from '../library/db.js';
import type { IntentOp, IntentPhase, IntentRecord } from '../library/types.js';
import type { Plan } from './plan-types.js';

/**
 * The journal: every mutation first claims an intent record in the library (only one mutation
 * runs at a time), stores its plan there before touching the filesystem, and deletes the intent
 * in the transaction that commits the result. A leftover intent whose process is gone is an
 * interrupted command, recovered by core/install/recover.ts.
 */

/** True when a process with this pid exists (it may belong to another user). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims the library for one mutation. Interrupted intents (dead pid) are handed to `recover`
 * first; a live one means another sf is changing the library: SF_E_CONFLICT.
 */
export async function beginMutation(
  lib: Library,
  op: IntentOp,
  id: string,
  now: string,
  recover: (stale: IntentRecord<Plan>) => Promise<unknown>,
): Promise<IntentRecord<Plan>> {
  const intent: IntentRecord<Plan> = { schema: 1, id, op, pid: process.pid, startedAt: now, phase: 'planning' };
  for (let attempt = 0; attempt < 5; attempt++) {
    const blockers = lib.claim(intent) as IntentRecord<Plan>[];
    if (blockers.length === 0) return intent;
    const live = blockers.find((b) => pidAlive(b.pid));
    if (live) {
      throw new SfError('SF_E_CONFLICT', `another sf command (pid ${live.pid}, ${live.op} since ${live.startedAt}) is changing the library`, {
        hint: 'wait for it to finish and run the command again',
      });
    }
    for (const stale of blockers) await recover(stale);
  }
  throw new SfError('SF_E_LIBRARY', 'could not claim the library after recovering interrupted commands', { hint: 'run `sf skit doctor --fix`' });
}

/** Records the plan and phase of a claimed intent (durably, before the steps it describes). */
export function updateIntent(lib: Library, intent: IntentRecord<Plan>, phase: IntentPhase, plan?: Plan): IntentRecord<Plan> {
  const next: IntentRecord<Plan> = { ...intent, phase, ...(plan ? { plan } : {}) };
  lib.commit({ putIntent: next });
  return next;
}

/** Releases a claim without committing anything (the plan failed or was cancelled). */
export function abandonIntent(lib: Library, intent: IntentRecord): void {
  lib.commit({ deleteIntent: intent.id });
}
