import { parseSkillRef, requireInScope } from './find-installation.js';
import { explicitProjectRoot, projectRootGone, resolveScope, type Session } from './context.js';
import { SfError } from '../errors/index.js';
import type { HostAdapter, Scope } from './host-adapter.js';
import { planEnv, runMutation, type MutationResult } from './mutate.js';
import { planEnablement } from './plan-enablement.js';
import { planRemove } from './plan-remove.js';
import { hostMoves } from './requests.js';
import { survey } from './survey.js';
import { nativeAgentIds } from './targets.js';
import { scopeKey } from '../library/types.js';
import { join } from 'node:path';

export interface RemoveRequest {
  id: string;
  scope?: Scope;
  /** the project the installation is recorded in (`--project`), also one that is gone; instead of `scope` */
  project?: string;
  /** remove only these targets */
  agents?: HostAdapter[];
  force?: boolean;
}

/** `sf skit remove`: unprojects the installation (or some targets) and forgets it. */
export async function removeSkit(session: Session, req: RemoveRequest): Promise<MutationResult> {
  if (req.project !== undefined && req.scope === 'user') {
    throw new SfError('SF_E_USAGE', '--project and --scope user cannot be combined', { hint: 'use --project <path> for a project installation, or --scope user for the user\'s' });
  }
  const { scope, projectRoot } = req.project !== undefined ? { scope: 'project' as const, projectRoot: explicitProjectRoot(req.project, session) } : resolveScope(req.scope, session);
  const key = scopeKey(scope, projectRoot);
  return runMutation(
    session,
    'remove',
    async (lib) => {
      const installations = lib.listInstallations();
      const before = requireInScope(installations, key, req.id);
      const observations = await survey(session.paths, [], before);
      return planRemove(
        { installations, observations },
        {
          skitId: req.id, scopeKey: key, agents: req.agents?.map((a) => a.id), nativeAgents: nativeAgentIds(session), force: req.force ?? false, moved: hostMoves(session, before.targets),
          projectGone: before.scope === 'project' && before.projectRoot !== undefined && projectRootGone(before.projectRoot),
        },
        planEnv(session),
      );
    },
    null,
  );
}

export interface EnablementRequest {
  /** `owner/name:skill` */
  skill: string;
  enabled: boolean;
  scope?: Scope;
  agents?: HostAdapter[];
  force?: boolean;
}

/** `sf skit enable|disable`: one contained skill, for every agent or the named ones. */
export async function setSkillEnabled(session: Session, req: EnablementRequest): Promise<MutationResult> {
  const { scope, projectRoot } = resolveScope(req.scope, session);
  const key = scopeKey(scope, projectRoot);
  const ref = parseSkillRef(req.skill);
  return runMutation(
    session,
    req.enabled ? 'enable' : 'disable',
    async (lib) => {
      // a disable checks no other installation (nothing appears): named by its id, only its record is read
      const own = req.enabled ? undefined : lib.getInstallation(key, ref.skitId);
      const installations = own ? [own] : lib.listInstallations();
      const before = requireInScope(installations, key, ref.skitId);
      const candidates = before.targets.map((t) => join(t.skillRoot, ref.skill));
      const observations = await survey(session.paths, candidates, before);
      return planEnablement(
        { installations, observations },
        { skitId: ref.skitId, skill: ref.skill, enabled: req.enabled, scopeKey: key, agents: req.agents?.map((a) => a.id), nativeAgents: nativeAgentIds(session), force: req.force ?? false, moved: hostMoves(session, before.targets) },
        planEnv(session),
      );
    },
    null,
  );
}
