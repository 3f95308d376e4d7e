import { SfError } from '../errors/index.js';
import { inventoryEvent } from './events.js';
import { requireInScope } from './find-installation.js';
import { PathOwners, assertUnmodified, describeMove, moveFact, stillUsed, withoutReplaced } from './plan-checks.js';
import type { HostMove } from './host-adapter.js';
import type { Plan, PlanEnv, PlanState, Step } from './plan-types.js';
import { requestFor, specOf } from './requests.js';
import type { InstallationRecord } from '../library/types.js';

export interface RemoveInput {
  /** SKIT id or alias */
  skitId: string;
  scopeKey: string;
  /** remove only these agent targets (default: every target, and the installation) */
  agents?: readonly string[];
  nativeAgents: readonly string[];
  force: boolean;
  /** targets whose hosts now read elsewhere than recorded (hostMoves): removed where recorded, and said so */
  moved?: readonly HostMove[];
  /** the installation's project root is gone (projectRootGone): only what lies outside it is cleaned up, and that is said */
  projectGone?: boolean;
}

/**
 * Plans removing an installation (or some of its agent targets). Only paths the library records
 * for the removed targets are touched, and of those only the ones no remaining target or other
 * installation also records, by name or as the same entry of one directory reached through a
 * symbolic link; an entry the user put in Forge's place is left (and named in a note). Pure but
 * for that look at where the skill roots really are.
 */
export function planRemove(state: PlanState, input: RemoveInput, env: PlanEnv): Plan {
  const before = requireInScope(state.installations, input.scopeKey, input.skitId);
  const agents = input.agents;
  if (agents) {
    const missing = agents.filter((a) => !before.targets.some((t) => t.agent === a));
    if (missing.length > 0) {
      throw new SfError('SF_E_NOT_INSTALLED', `${before.skitId} is not installed for ${missing.join(', ')}`, {
        hint: `it is installed for: ${before.targets.map((t) => t.agent).join(', ') || 'no agent'}`,
      });
    }
  }
  const removed = before.targets.filter((t) => !agents || agents.includes(t.agent));
  const remaining = before.targets.filter((t) => !removed.includes(t));
  const after = remaining.length > 0 ? { ...before, targets: remaining, updatedAt: env.now } : null;
  const used = stillUsed(state.owners ?? PathOwners.of(state.installations), before, after);
  const notes: string[] = movedNotes(before, removed, input.moved ?? []);
  if (input.projectGone) notes.push(`the project ${before.projectRoot} is gone; forgot ${before.skitId} there${agents ? ` for ${removed.map((t) => t.agent).join(', ')}` : ''} (nothing was created in its place)`);

  const steps: Step[] = removed.map((t) => ({
    kind: 'unproject',
    target: specOf(t, input.nativeAgents.includes(t.agent)),
    record: { ...t, paths: withoutReplaced(t.paths.filter((p) => !used(p.path)), state.observations, notes) },
  }));
  if (after) {
    // an agent with a native switch that shared its directory with a removed one asks for the
    // skills disabled for both again (see requestFor): project them, switched off
    const shapes = (targets: typeof before.targets) => targets.map((t) => specOf(t, input.nativeAgents.includes(t.agent)));
    for (const t of remaining) {
      const was = requestFor(before, t.agent, env.storeRoot, shapes(before.targets));
      const now = requestFor(after, t.agent, env.storeRoot, shapes(remaining));
      if (now.skills.length !== was.skills.length) steps.push({ kind: 'enablement', target: specOf(t, input.nativeAgents.includes(t.agent)), request: now, record: t });
    }
  }
  // a link's files are the store entry's: removing the link loses nothing while the entry stays
  // (another installation uses it, or agents of this one remain), so only copies and the links
  // into an entry this removal deletes are checked for edits
  const entryStays = after !== null || state.installations.some((i) => i !== before && i.bundleHash === before.bundleHash);
  const deleted = steps.flatMap((s) => (s.kind === 'unproject' ? s.record.paths.map((p) => p.path) : []));
  const lost = entryStays ? deleted.filter((p) => state.observations.paths[p]?.kind !== 'symlink') : deleted;
  assertUnmodified(lost, state.observations, input.force, `remove ${before.skitId}`);

  const events = removed.map((t) =>
    inventoryEvent({ action: 'removed', record: before, agent: t.agent, now: env.now, id: env.newId(), installerVersion: env.installerVersion }),
  );
  return {
    op: 'remove',
    scopeKey: input.scopeKey,
    skitId: before.skitId,
    before,
    after,
    steps,
    events,
    gcCandidates: after ? [] : [before.bundleHash],
    notes,
  };
}

/**
 * A removal goes where the record says (the recorded skill directory and config entries), also
 * when the host now reads elsewhere: that is said, so the user knows what the host still sees. A
 * host that stays installed but reads elsewhere now is said too (as doctor says it), with the way
 * to move it.
 */
function movedNotes(before: InstallationRecord, removed: readonly InstallationRecord['targets'][number][], moves: readonly HostMove[]): string[] {
  return moves.map((m) => {
    if (!removed.some((t) => t.agent === m.agent)) {
      const { message, hint } = describeMove(before, m);
      return `${m.agent} (kept): ${message}; ${hint}`;
    }
    return `${m.agent}: ${moveFact(m)}; removed ${m.what === 'skill directory' ? before.skitId : `the switches of ${before.skitId}`} from ${m.recorded}, where ${m.what === 'skill directory' ? 'it was installed' : 'they were'}`;
  });
}
