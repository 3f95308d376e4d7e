import { join } from 'node:path';
import { SfError } from '../errors/index.js';
import { didYouMean } from '../text/suggest.js';
import { isEnabled, withOverride } from './enablement.js';
import type { EnablementOverrides } from '../library/types.js';
import { inventoryEvent } from './events.js';
import { requireInScope } from './find-installation.js';
import { PathOwners, assertNoCollisions, assertNotMoved, assertNotReplaced, assertSharedRootsAgree, assertUnmodified } from './plan-checks.js';
import type { HostMove } from './host-adapter.js';
import type { Observations, Plan, PlanEnv, PlanState, Step, TargetSpec } from './plan-types.js';
import { aroundTheirs, expectedPaths, requestFor, specOf } from './requests.js';

export interface EnablementInput {
  skitId: string;
  skill: string;
  enabled: boolean;
  scopeKey: string;
  /** only for these agents (default: every agent, recorded as a `*` override) */
  agents?: readonly string[];
  nativeAgents: readonly string[];
  force: boolean;
  /** targets whose hosts now read elsewhere than recorded (hostMoves): changed in place, they would be refused */
  moved?: readonly HostMove[];
}

/**
 * Plans enabling or disabling one contained skill. Hosts with native enablement get their
 * control updated; for the others the skill directory is projected or removed. Pure.
 */
export function planEnablement(state: PlanState, input: EnablementInput, env: PlanEnv): Plan {
  const before = requireInScope(state.installations, input.scopeKey, input.skitId);
  const skill = before.skills.find((s) => s.name === input.skill);
  if (!skill) {
    throw new SfError('SF_E_NOT_FOUND', `${before.skitId} has no skill "${input.skill}"${didYouMean(input.skill, before.skills.map((s) => s.name))}`, {
      hint: `its skills: ${before.skills.map((s) => s.id).join(', ')}`,
    });
  }
  if (input.agents) {
    const missing = input.agents.filter((a) => !before.targets.some((t) => t.agent === a));
    if (missing.length > 0) {
      throw new SfError('SF_E_NOT_INSTALLED', `${before.skitId} is not installed for ${missing.join(', ')}`, {
        hint: `it is installed for: ${before.targets.map((t) => t.agent).join(', ') || 'no agent'}`,
      });
    }
  }
  const after = { ...before, enablement: withOverride(before.enablement, skill.name, input.enabled, input.agents), updatedAt: env.now };
  const mine = new Set(before.targets.flatMap((t) => t.paths.map((p) => p.path)));
  const steps: Step[] = [];
  const events: Plan['events'] = [];
  const shared: { target: TargetSpec; skillIds: Set<string> }[] = [];
  const removedPaths: string[] = [];
  // indexed only when a skill comes back where another SKIT could own its name
  let owners: PathOwners | undefined;

  const specs = before.targets.map((t) => specOf(t, input.nativeAgents.includes(t.agent)));
  for (const record of before.targets) {
    const target = specOf(record, input.nativeAgents.includes(record.agent));
    const request = requestFor(after, record.agent, env.storeRoot, specs);
    shared.push({ target, skillIds: new Set(expectedPaths(target, request).map((p) => p.skillId)) });
    const was = isEnabled(before.enablement, skill, record.agent);
    const now = isEnabled(after.enablement, skill, record.agent);
    if (was === now) continue;
    const verb = `${input.enabled ? 'enable' : 'disable'} ${skill.id}`;
    // before the other checks: they look at the recorded place, which the host no longer reads
    assertNotMoved(before, input.moved?.find((m) => m.agent === record.agent), verb);
    const path = record.paths.find((p) => p.skillId === skill.id)?.path ?? join(record.skillRoot, skill.name);
    // the skill's own place holds the user's entry: a switch by name or a link there would reach theirs
    assertNotReplaced(record.paths.filter((p) => p.skillId === skill.id), state.observations, verb);
    if (!target.nativeEnablement && now) assertNoCollisions([{ skillId: skill.id, path, mode: 'symlink' }], mine, (owners ??= state.owners ?? PathOwners.of(state.installations)), before, state.observations);
    if (!target.nativeEnablement && !now) removedPaths.push(path);
    steps.push(aroundReplaced({ kind: 'enablement', target, request, record }, state.observations));
    events.push(
      inventoryEvent({
        action: now ? 'enabled' : 'disabled',
        record: after,
        agent: record.agent,
        skillNames: [skill.name],
        now: env.now,
        id: env.newId(),
        installerVersion: env.installerVersion,
      }),
    );
  }
  assertSharedRootsAgree(shared);
  assertUnmodified(removedPaths, state.observations, input.force, `disable ${skill.id}`);
  // nothing changes for any agent, but the choice is recorded all the same: an update whose
  // release turns the skill's default_enabled around keeps what the user asked for
  const recorded = steps.length === 0 && !alreadyChosen(before.enablement, skill.name, input.enabled, input.agents);
  const already = `${skill.id} is already ${input.enabled ? 'enabled' : 'disabled'}${input.agents ? ` for ${input.agents.join(', ')}` : ''}`;
  const notes = steps.length > 0 ? [] : [recorded ? `${already}; recorded as your choice, which updates keep whatever the release's default_enabled says` : already];
  return {
    op: input.enabled ? 'enable' : 'disable',
    scopeKey: input.scopeKey,
    skitId: before.skitId,
    before,
    after: steps.length === 0 && !recorded ? before : after,
    steps,
    events,
    gcCandidates: [],
    notes,
  };
}

/**
 * An enablement step that leaves the user's entries in Forge's places alone (the other skills of
 * the target change as asked): they go out of its request and record into `keep`.
 */
function aroundReplaced(step: Extract<Step, { kind: 'enablement' }>, observations: Observations): Extract<Step, { kind: 'enablement' }> {
  const theirs = step.record.paths.filter((p) => observations.paths[p.path]?.replaced);
  return theirs.length === 0 ? step : { ...step, ...aroundTheirs(step.request, step.record, theirs) };
}

/**
 * Whether the overrides already hold `enabled` as the user's choice for `agents` (for every agent:
 * a `*` entry no agent entry contradicts), so an enable or disable that changes nothing has
 * nothing to record either.
 */
function alreadyChosen(overrides: EnablementOverrides, skill: string, enabled: boolean, agents?: readonly string[]): boolean {
  const o = overrides[skill] ?? {};
  if (!agents) return o['*'] === enabled && Object.values(o).every((v) => v === enabled);
  return agents.every((a) => (a in o ? o[a] : o['*']) === enabled);
}
