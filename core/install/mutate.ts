import { isDeepStrictEqual } from 'node:util';
import { InstallationCache, Library } from '../library/db.js';
import { stageStoreEntry, type StagedEntry } from '../library/store.js';
import type { InstallationRecord, IntentOp, IntentRecord } from '../library/types.js';
import { applyPlan, type LiveRelease } from './apply.js';
import { hostContext, type Session } from './context.js';
import { abandonIntent as abandonFlushed, beginMutation, claimWait, unrecoveredFor, updateIntent, type Unrecovered } from './journal.js';
import type { HostAdapter, HostContext } from './host-adapter.js';
import type { Plan, PlanEnv, Step } from './plan-types.js';
import { recoverIntent } from './recover.js';
import { rollBack } from './rollback.js';
import { FORGE_VERSION } from '../version.js';
import { SfError } from '../errors/index.js';
import { trace } from '../trace/startup.js';
import { backUpEdits } from './edit-backups.js';

export interface MutationResult {
  plan: Plan;
  /** the installation afterwards (null when removed) */
  record: InstallationRecord | null;
  /** false when the plan had nothing to do or was cancelled */
  changed: boolean;
  cancelled: boolean;
}

/** The PlanEnv of a session. */
export function planEnv(session: Session): PlanEnv {
  return { storeRoot: session.paths.store, now: session.now(), installerVersion: FORGE_VERSION, newId: session.newId };
}

/**
 * Runs one mutation: claim the journal (recovering interrupted commands first), plan (the
 * `makePlan` callback reads state under the claim), record the plan, apply it. A failing step
 * rolls the change back before the error propagates.
 *
 * With `confirm` (a prompt), the plan is made and answered before the claim: a person may take
 * minutes to answer, and every other sf mutation, in any project, waits for the claim. Under the
 * claim the plan is made again; only the same plan goes ahead, else the new one is asked about.
 */
export async function runMutation(
  session: Session,
  op: IntentOp,
  makePlan: (lib: Library) => Promise<Plan>,
  release: LiveRelease | null,
  confirm?: (plan: Plan) => Promise<boolean>,
): Promise<MutationResult> {
  // the plan and the garbage collection read the installations once (a pass shares its cache)
  const lib = (await Library.open(session.paths, { create: true, cache: session.libraryCache ?? new InstallationCache() }))!;
  trace('library open');
  try {
    const unrecovered: Unrecovered[] = [];
    /** the plan the user said yes to, not yet made again under the claim */
    let answered: Plan | null = null;
    let intent: IntentRecord<Plan>;
    let plan: Plan;
    for (let round = 1; ; round++) {
      if (confirm && !answered) {
        // a prompt broken off (Ctrl-C, end of input) changes nothing, and nothing is claimed yet
        const look = await makePlan(lib).catch(() => null);
        // a plan that fails before the claim may only be an interrupted command's state: judged again after its recovery
        if (look && !isIdle(look)) {
          if (!(await confirm(look))) return { plan: look, record: look.before, changed: false, cancelled: true };
          answered = look;
        }
      }
      intent = await beginMutation(lib, op, session.newId(), session.now(), (stale) => recoverIntent(session, lib, stale), claimWait(session), (u) => unrecovered.push(u));
      try {
        plan = await makePlan(lib);
        // an installation whose interrupted command cannot be recovered is left alone until it is
        const stuck = unrecoveredFor(plan);
        if (stuck) throw stuck.error;
      } catch (e) {
        abandonIntent(lib, intent);
        throw e;
      }
      if (!confirm || isIdle(plan) || (answered && samePlan(plan, answered))) break;
      // the library or the agent directories changed while the user answered (or before the
      // claim nothing could be planned): ask about what the plan is now
      abandonIntent(lib, intent);
      answered = null;
      if (round >= MAX_CONFIRM_ROUNDS) {
        throw new SfError('SF_E_CONFLICT', `what ${op} would change kept changing while you were asked to confirm it (other sf commands are changing the same installations)`, {
          hint: 'run the command again once the other commands have finished, or pass --yes to install what is there when the library is claimed',
        });
      }
    }
    // other installations go ahead: the user hears of the one left behind once
    for (const u of unrecovered) process.stderr.write(`warning: ${u.error.message}\n  hint: ${u.error.hint}\n`);
    if (isIdle(plan)) {
      abandonIntent(lib, intent);
      return { plan, record: plan.before, changed: false, cancelled: false };
    }
    try {
      await preflight(session, plan);
      await backUpEdits(session, plan);
    } catch (e) {
      abandonIntent(lib, intent);
      throw e;
    }
    trace('planned');
    // the store entry is written into staging (scratch, invisible) and its fsyncs run while the
    // plan is flushed; the store step publishes it only after that
    let staged: StagedEntry | null = null;
    try {
      staged = release && plan.steps.some((s) => s.kind === 'store') ? await stageStoreEntry(session.paths, release.sourceRoot, release.hashes) : null;
    } catch (e) {
      abandonIntent(lib, intent);
      throw e;
    }
    let record: InstallationRecord | null;
    try {
      intent = updateIntent(lib, intent, 'applying', plan);
      record = await applyPlan(session, lib, intent, release && { ...release, staged });
    } catch (e) {
      const current = lib.getIntent(intent.id);
      if (current && current.phase === 'applying') {
        try {
          // reported as failed: if the undo fails too, recovery must finish the undo, not the command
          await rollBack(session, lib, updateIntent(lib, { ...intent, ...current } as typeof intent, 'rolling-back'));
        } catch (rollbackError) {
          // the original error is the one to report; the intent stays for `sf skit doctor --fix`
          process.stderr.write(`warning: could not undo the failed ${op} (${(rollbackError as Error).message}); run \`sf skit doctor --fix\`\n`);
        }
      }
      throw e;
    } finally {
      await staged?.discard();
    }
    return { plan, record, changed: true, cancelled: false };
  } finally {
    await lib.close();
  }
}

/**
 * Runs every adapter's checks for its step before any step writes: a config file that does not
 * parse or a user entry that conflicts, for any agent, fails the command with nothing changed.
 * Each step is checked where it will write (see writesAt), a move in both places.
 */
async function preflight(session: Session, plan: Plan): Promise<void> {
  for (const step of plan.steps) {
    if (step.kind === 'store') continue;
    const adapter = session.adapters.get(step.target.agent);
    const ctx = hostContext(session, step.target.agent, step.target.scope, step.target.projectRoot);
    // a remove checks too: a config that does not parse must stop it before any link is gone
    if (step.kind === 'unproject') await adapter.preflightUnproject?.(step.record, ctx);
    else await adapter.preflight?.(step.request, step.record, writesAt(adapter, step, ctx));
    // projecting a target whose host moved also takes Forge's entries out of the recorded config files
    if (step.kind === 'project' && step.record && adapter.moved?.(step.record, ctx)) await adapter.preflightUnproject?.({ ...step.record, paths: [] }, ctx);
  }
}

/**
 * The context a step writes in. An enablement step writes where its record says (setEnablement),
 * also when the host now reads elsewhere (a remaining Codex of a remove after CODEX_HOME changed):
 * checked in the current context, the recorded config was not looked at and one Forge never
 * writes could stop the command. The HostMove names the variable and its recorded value.
 */
function writesAt(adapter: HostAdapter, step: Exclude<Step, { kind: 'store' | 'unproject' }>, ctx: HostContext): HostContext {
  if (step.kind !== 'enablement') return ctx;
  const variable = adapter.moved?.(step.record, ctx)?.variable;
  return variable?.recorded === undefined ? ctx : { ...ctx, env: { ...ctx.env, [variable.name]: variable.recorded } };
}

/** Every release of a claim here comes before the plan is recorded: nothing was flushed under it (see abandonIntent). */
const abandonIntent = (lib: Library, intent: IntentRecord<Plan>) => abandonFlushed(lib, intent, { flush: false });

const stripTimes = (r: InstallationRecord | null) => (r ? { ...r, updatedAt: '' } : null);

/** A plan with nothing to do: no step, and the record as it was (apart from its time). */
const isIdle = (plan: Plan) => plan.steps.length === 0 && isDeepStrictEqual(stripTimes(plan.after), stripTimes(plan.before));

/** How often a prompt is asked again because what it asked about changed before the claim. */
const MAX_CONFIRM_ROUNDS = 3;

/**
 * Whether a plan made under the claim changes what the confirmed one did: the same steps, records
 * and deletions. Times, event ids and notes differ between any two plannings and are not compared.
 */
function samePlan(a: Plan, b: Plan): boolean {
  const gist = (p: Plan) => ({
    ...p,
    before: p.before && { ...p.before, installedAt: '', updatedAt: '' },
    after: p.after && { ...p.after, installedAt: '', updatedAt: '' },
    events: [],
    notes: [],
  });
  return isDeepStrictEqual(gist(a), gist(b));
}
