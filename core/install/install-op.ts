import { existsSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { SfError, type Diagnostic } from '../errors/index.js';
import type { ResolveOptions } from '../sources/index.js';
import { resolveScope, type Session } from './context.js';
import { changeWarnings } from './change-warnings.js';
import type { HostAdapter, Scope } from './host-adapter.js';
import { runMutation, planEnv, type MutationResult } from './mutate.js';
import { existingFor, planInstall } from './plan-install.js';
import type { Plan } from './plan-types.js';
import { prepareRelease } from './prepare.js';
import { targetsNow } from './requests.js';
import { survey } from './survey.js';
import { chooseAdapters, nativeAgentIds, targetSpecs } from './targets.js';
import { scopeKey } from '../library/types.js';

export interface InstallRequest {
  source: string;
  version?: string;
  scope?: Scope;
  /** adapters named with --agent; 'all' or undefined: the detected agents */
  agents?: HostAdapter[] | 'all';
  force?: boolean;
  alias?: string;
  /** asked after planning, before anything changes; false cancels */
  confirm?: (plan: Plan) => Promise<boolean>;
  resolvers?: ResolveOptions['resolvers'];
}

export interface InstallOutcome extends MutationResult {
  /** warnings from resolving and validating the source */
  diagnostics: Diagnostic[];
}

/**
 * `sf add skit` / `sf skit install`: resolve, validate and hash the source, then store it and
 * project it to every target agent under the journal. Installing a SKIT that is already installed
 * in this scope updates it and adds any new targets; like `sf skit update`, it moves the recorded
 * agents whose hosts now read elsewhere (targetsNow).
 */
export async function installSkit(session: Session, req: InstallRequest): Promise<InstallOutcome> {
  const { scope, projectRoot } = resolveScope(req.scope, session);
  // a path that is not there says so before "no agent was detected" sends the user after agents
  assertExplicitPathExists(req.source, session.cwd);
  const adapters = await chooseAdapters(session, req.agents, scope, projectRoot);
  const targets = targetSpecs(session, adapters, scope, projectRoot);
  const prep = await prepareRelease(session, req.source, { version: req.version, resolvers: req.resolvers });
  try {
    const result = await runMutation(
      session,
      'install',
      async (lib) => {
        const installations = lib.listInstallations();
        const key = scopeKey(scope, projectRoot);
        const before = existingFor({ installations }, key, prep.prepared);
        // installed already: its other agents too where they read now, so a moved host moves as with update
        const { targets: all, moved } = targetsNow(session, before, targets);
        const candidates = all.flatMap((t) => prep.prepared.skills.map((s) => join(t.skillRoot, s.name)));
        const observations = await survey(session.paths, candidates, before);
        const plan = planInstall(
          { installations, observations },
          { op: 'install', prepared: prep.prepared, scope, projectRoot, targets: all, nativeAgents: nativeAgentIds(session), force: req.force ?? false, alias: req.alias, moved, keepEditedCopies: keepsEditedCopies(session) },
          planEnv(session),
        );
        return plan;
      },
      { sourceRoot: prep.sourceRoot, hashes: prep.hashes },
      req.confirm,
    );
    const exposure = result.record && !result.cancelled ? await changeWarnings(session, result.record) : [];
    return { ...result, diagnostics: [...prep.diagnostics, ...exposure] };
  } finally {
    await prep.cleanup();
  }
}

/** A source written as a path (/x, ./x, ../x) that does not exist is SF_E_NOT_FOUND, as the local resolver would say. */
function assertExplicitPathExists(source: string, cwd: string): void {
  if (!/^(\/|\.\.?\/)/.test(source)) return;
  const abs = resolvePath(cwd, source);
  if (existsSync(abs)) return;
  throw new SfError('SF_E_NOT_FOUND', `no file or directory at ${abs}`, {
    hint: 'check the path; relative paths are resolved against the current directory',
    data: { path: abs },
  });
}

/**
 * Whether a plan may leave an edited copy of an unchanged skill in place (InstallInput.keepEditedCopies):
 * not when the adapters are told to link (SF_PROJECTION_MODE=symlink), which would replace it.
 */
export function keepsEditedCopies(session: Session): boolean {
  return session.env.SF_PROJECTION_MODE?.trim() !== 'symlink';
}

