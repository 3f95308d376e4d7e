import type { Library } from '../library/db.js';
import { hasStoreEntry } from '../library/store.js';
import type { IntentRecord } from '../library/types.js';
import { collectGarbage } from './apply.js';
import { hostContext, type Session } from './context.js';
import type { ConfigEdit, HostContext, ProjectionRecord, ProjectionRequest } from './host-adapter.js';
import { repairsAmong } from './repairs.js';
import type { Plan } from './plan-types.js';
import { aroundTheirs, requestFor, targetShapes } from './requests.js';
import { replacedPaths } from './survey.js';
import { sameSkillRoot } from './targets.js';

/**
 * Puts the agent directories back to the plan's `before` state and drops the intent: new targets
 * lose what the plan put there, existing targets get the old release projected again, except where
 * the user has since put their own entry in Forge's place. A target an update moved to another
 * skill directory loses what the plan put in the new one. Used when a step fails in a live
 * command, and when recovery cannot roll a plan forward.
 */
export async function rollBack(session: Session, lib: Library, intent: IntentRecord<Plan>): Promise<void> {
  const plan = intent.plan;
  if (plan) {
    const before = plan.before;
    // an agent whose skill directory moved (an update re-resolves it) is new in its new directory
    const keptRoot = (t: { agent: string; skillRoot: string }) => before?.targets.some((b) => b.agent === t.agent && sameSkillRoot(b.skillRoot, t.skillRoot)) ?? false;
    const beforeStored = before ? await hasStoreEntry(session.paths, before.bundleHash) : false;
    // config entries the failed command wrote are Forge's too, though no record lists them yet
    const withAttempted = <T extends { agent: string; configEdits: ConfigEdit[] }>(t: T): T => ({ ...t, configEdits: [...t.configEdits, ...(plan.attempted?.[t.agent] ?? [])] });
    for (const t of plan.after?.targets ?? []) {
      if (keptRoot(t)) continue;
      const ctx = hostContext(session, t.agent, t.scope, t.projectRoot);
      // the plan checked these paths held nothing foreign; whatever is there now (link or copy) is ours
      await session.adapters.get(t.agent).unproject(withAttempted({ ...t, paths: t.paths.map((p) => ({ ...p, mode: 'copy' as const })) }), ctx);
    }
    if (before && beforeStored) {
      for (const t of before.targets) {
        const ctx = hostContext(session, t.agent, t.scope, t.projectRoot);
        const request = requestFor(before, t.agent, session.paths.store, targetShapes(session, before.targets));
        // an entry the user put in Forge's place since is theirs: left as it is, so the undo can always finish
        const around = aroundTheirs(request, t, replacedPaths(t.paths, session.paths.store));
        const record = withAttempted(around.record);
        if (await alreadyAsBefore(session, around.request, record, plan.attempted?.[t.agent], ctx)) continue;
        // the old record (and what was attempted) says which directories and entries are Forge's
        await session.adapters.get(t.agent).setEnablement(around.request, record, ctx);
      }
    }
  }
  // collected before the claim is released (see commitPlan); the records still say the old state
  if (plan?.after && plan.after.bundleHash !== plan.before?.bundleHash) await collectGarbage(session, lib, [plan.after.bundleHash], undefined, intent.id);
  lib.commit({ deleteIntent: intent.id });
}

/**
 * Whether a target of the old state needs nothing undone: the failed command wrote no config entry
 * for it (its write notes say), and its adapter finds nothing that projecting the old state again
 * would change. Then the undo writes nothing, so it also finishes where nothing can be written (a
 * disable that failed because the project is read-only changed nothing, and must not be left
 * needing an undo that cannot happen).
 */
async function alreadyAsBefore(session: Session, request: ProjectionRequest, record: ProjectionRecord, attempted: readonly ConfigEdit[] | undefined, ctx: HostContext): Promise<boolean> {
  if ((attempted?.length ?? 0) > 0) return false;
  try {
    // read afresh, not through a pass's memo: the undo may write right after
    const { memo: _shared, ...fresh } = ctx;
    return repairsAmong(await session.adapters.get(record.agent).diagnose(request, record, fresh)).length === 0;
  } catch {
    // what cannot even be looked at is undone the ordinary way, which reports why
    return false;
  }
}

