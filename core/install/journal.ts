import { fromSystemError, isSfError, SfError } from '../errors/index.js';
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

/** An interrupted command whose recovery failed in this process, and the error that says so (see unrecoveredError). */
export interface Unrecovered {
  intent: IntentRecord<Plan>;
  error: SfError;
}

/**
 * Interrupted commands this process tried to recover and could not, by intent id. Their intents
 * stay, holding this process's pid (other commands wait for this one, then try themselves), and
 * this process's claims go ahead around them: one installation that cannot be recovered (its
 * project became read-only, its config no longer parses) must not stop commands on every other
 * one. A pass of many mutations tries each recovery once.
 */
const unrecovered = new Map<string, Unrecovered>();

/** Which installation an intent changes: "acme/kit in /p" or "acme/kit in the user scope". */
export function intentSubject(intent: Pick<IntentRecord<Plan>, 'plan'>): string | undefined {
  const plan = intent.plan;
  if (!plan) return undefined;
  const where = plan.scopeKey.startsWith('project:') ? plan.scopeKey.slice('project:'.length) : 'the user scope';
  return `${plan.skitId} in ${where}`;
}

/**
 * "an interrupted disable of acme/kit in /p could not be recovered: <cause>", with the cause's
 * code (a full disk stays SF_E_DISK_FULL) and a hint that says what finishes it.
 */
export function unrecoveredError(intent: IntentRecord<Plan>, cause: SfError): SfError {
  const subject = intentSubject(intent);
  const what = `an interrupted ${intent.plan?.op ?? intent.op}${subject ? ` of ${subject}` : ''}`;
  // the cause's own advice, without its generic note on recovery (said below, for this case)
  const advice = cause.hint?.replace(/;? ?`sf skit doctor --fix` finishes or undoes a change it interrupted$/, '').replace(/\.$/, '');
  return new SfError(cause.code, `${what} could not be recovered: ${cause.message}`, {
    ...(cause.location ? { location: cause.location } : {}),
    hint: `${advice || 'fix what it names'}; once that is done, \`sf skit doctor --fix\` finishes the interrupted ${intent.plan?.op ?? intent.op} (commands on other installations go ahead meanwhile)`,
    data: { ...cause.data, intent: intent.id },
    cause,
  });
}

/** The unrecoverable interrupted command of the installation `plan` changes, if this process met one. */
export function unrecoveredFor(plan: Pick<Plan, 'skitId' | 'scopeKey'>): Unrecovered | undefined {
  for (const u of unrecovered.values()) if (u.intent.plan?.skitId === plan.skitId && u.intent.plan.scopeKey === plan.scopeKey) return u;
  return undefined;
}

/** Intents this process holds because their recovery failed here: claims go ahead around them. */
const parkedHere = (i: IntentRecord) => i.pid === process.pid && unrecovered.has(i.id);

/**
 * Claims the library for one mutation. Interrupted intents (dead pid) are taken over (see
 * Library.takeOver) and handed to `recover` first (with the intent as it was interrupted). A live one means another sf is changing the library: like npm and pnpm with their
 * locks, the claim waits for it (polling, up to `wait.timeoutMs`), then fails with SF_E_CONFLICT.
 * A recovery that fails with an SfError or a failed system call is told to `onUnrecovered` and
 * left for later (see `unrecovered`); the claim goes ahead.
 */
export async function beginMutation(
  lib: Library,
  op: IntentOp,
  id: string,
  now: string,
  recover: (intent: IntentRecord<Plan>, interrupted: IntentRecord<Plan>) => Promise<unknown>,
  wait: ClaimWait = { timeoutMs: 0 },
  onUnrecovered?: (u: Unrecovered) => void,
): Promise<IntentRecord<Plan>> {
  const intent: IntentRecord<Plan> = { schema: 1, id, op, pid: process.pid, startedAt: now, phase: 'planning' };
  const started = Date.now();
  let waited = false;
  for (let recoveries = 0, polls = 0; recoveries < 5; ) {
    const blockers = lib.claim(intent, parkedHere) as IntentRecord<Plan>[];
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
      if (!mine) continue;
      try {
        await recover(mine, stale);
      } catch (e) {
        const cause = isSfError(e) ? e : fromSystemError(e);
        const left = lib.getIntent(mine.id) as IntentRecord<Plan> | undefined;
        // a bug is reported as one; a recovery that failed after dropping its intent has nothing left to go around
        if (!cause || !left) throw e;
        const u = { intent: left, error: unrecoveredError(left, cause) };
        unrecovered.set(left.id, u);
        onUnrecovered?.(u);
      }
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
