import { SfError } from '../errors/index.js';
import { stillRunningSince } from '../runtime/processes.js';
import type { Library } from '../library/db.js';
import type { IntentOp, IntentPhase, IntentRecord } from '../library/types.js';
import type { Session } from './context.js';
import type { ConfigEdit } from './host-adapter.js';
import type { Plan } from './plan-types.js';

/**
 * The journal: every mutation first claims an intent record in the library (only one mutation
 * runs at a time), stores its plan there before touching the filesystem, and deletes the intent
 * in the transaction that commits the result. A leftover intent whose process is gone is an
 * interrupted command, recovered by core/install/recover.ts.
 */

/** True when the process that recorded `intent` may still be running (see stillRunningSince: a reused pid does not count). */
export function intentHolderAlive(intent: Pick<IntentRecord, 'pid' | 'startedAt'>): boolean {
  return stillRunningSince(intent.pid, Date.parse(intent.startedAt));
}

/** How a claim waits for another live sf command that holds the library. */
export interface ClaimWait {
  /** give up after this long (0: fail at once) */
  timeoutMs: number;
  /** called once, when the claim starts waiting */
  onWait?: (holder: IntentRecord) => void;
}

/** $SF_LIBRARY_WAIT (seconds) or 60: how long a mutation waits for another sf command to finish. */
export function claimWaitFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.SF_LIBRARY_WAIT;
  const seconds = raw === undefined || raw.trim() === '' ? 60 : /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(seconds)) {
    throw new SfError('SF_E_USAGE', `SF_LIBRARY_WAIT must be a number of seconds (0 or more), not "${raw}"`, { hint: 'e.g. SF_LIBRARY_WAIT=120, or 0 to fail at once when another sf command is running' });
  }
  return seconds * 1000;
}

/** How a session's mutations wait for another sf command (SF_LIBRARY_WAIT), telling the user once. */
export function claimWait(session: Pick<Session, 'env' | 'progress'>): ClaimWait {
  return {
    timeoutMs: claimWaitFrom(session.env),
    onWait: (holder) => session.progress(`waiting for another sf command to finish (pid ${holder.pid}, ${holder.op})`),
  };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Claims the library for one mutation. Interrupted intents (dead pid) are taken over (see
 * Library.takeOver) and handed to `recover` first (with the intent as it was interrupted). A live one means another sf is changing the library: like npm and pnpm with their
 * locks, the claim waits for it (polling, up to `wait.timeoutMs`), then fails with SF_E_CONFLICT.
 */
export async function beginMutation(
  lib: Library,
  op: IntentOp,
  id: string,
  now: string,
  recover: (intent: IntentRecord<Plan>, interrupted: IntentRecord<Plan>) => Promise<unknown>,
  wait: ClaimWait = { timeoutMs: 0 },
): Promise<IntentRecord<Plan>> {
  const intent: IntentRecord<Plan> = { schema: 1, id, op, pid: process.pid, startedAt: now, phase: 'planning' };
  const started = Date.now();
  let waited = false;
  for (let recoveries = 0, polls = 0; recoveries < 5; ) {
    const blockers = lib.claim(intent) as IntentRecord<Plan>[];
    if (blockers.length === 0) return intent;
    const live = blockers.find((b) => intentHolderAlive(b));
    if (live) {
      if (Date.now() - started >= wait.timeoutMs) {
        throw new SfError('SF_E_CONFLICT', `another sf command (pid ${live.pid}, ${live.op} since ${live.startedAt}) is changing the library${waited ? ` and did not finish within ${Math.round(wait.timeoutMs / 1000)} s` : ''}`, {
          hint: 'wait for it to finish and run the command again (SF_LIBRARY_WAIT sets how many seconds sf waits by itself)',
        });
      }
      if (!waited) wait.onWait?.(live);
      waited = true;
      // a short first wait (most commands take well under a second), backing off to 250 ms
      await pause(Math.min(250, 20 * 2 ** polls++));
      continue;
    }
    for (const stale of blockers) {
      // taken over first: of several commands waiting on one interrupted intent, only one recovers it
      const mine = lib.takeOver(stale, process.pid, new Date().toISOString());
      if (mine) await recover(mine, stale);
    }
    recoveries++;
  }
  throw new SfError('SF_E_LIBRARY', 'could not claim the library after recovering interrupted commands', { hint: 'run `sf skit doctor --fix`' });
}

/** Records the plan and phase of a claimed intent (durably, before the steps it describes). */
export function updateIntent(lib: Library, intent: IntentRecord<Plan>, phase: IntentPhase, plan?: Plan): IntentRecord<Plan> {
  const next: IntentRecord<Plan> = { ...intent, phase, ...(plan ? { plan } : {}) };
  lib.commit({ putIntent: next });
  return next;
}

/**
 * Adds a config edit an adapter just made for `agent` to the intent's plan (`attempted`), so a
 * rollback knows the entry is Forge's. Not flushed on its own: it survives the process being
 * killed, and the next flushed commit carries it to disk.
 */
export function noteConfigEdit(lib: Library, intent: IntentRecord<Plan>, agent: string, edit: ConfigEdit): IntentRecord<Plan> {
  const plan = intent.plan!;
  const attempted = { ...plan.attempted, [agent]: [...(plan.attempted?.[agent] ?? []), edit] };
  const next: IntentRecord<Plan> = { ...intent, plan: { ...plan, attempted } };
  lib.commit({ putIntent: next }, { flush: false });
  return next;
}

/**
 * Releases a claim without committing anything (the plan failed or was cancelled). `flush: false`
 * when nothing was flushed under the claim (a mutation that never recorded its plan): like the
 * claim itself, the release then needs no fsync, since a claim a power cut brings back is a
 * `planning` intent of a dead process, which the next command drops. An update pass with nothing
 * to do thus pays no fsync per SKIT.
 */
export function abandonIntent(lib: Library, intent: IntentRecord, options: { flush?: boolean } = {}): void {
  lib.commit({ deleteIntent: intent.id }, options);
}
