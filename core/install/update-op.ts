import { SfError, isSfError, type Diagnostic } from '../errors/index.js';
import { compareSemver, parseSemver } from '../skit/semver.js';
import { InstallationCache, Library } from '../library/db.js';
import { recordScopeKey, scopeKey, type InstallationRecord } from '../library/types.js';
import { withGitRef, type ResolveOptions } from '../sources/index.js';
import { hubRange } from '../sources/origin.js';
import { resolveScope, type Session } from './context.js';
import { describeScope, findInScope, requireInScope } from './find-installation.js';
import type { Scope } from './host-adapter.js';
import { planEnv, runMutation, type MutationResult } from './mutate.js';
import { PathOwners } from './plan-checks.js';
import { planInstall } from './plan-install.js';
import { prepareRelease } from './prepare.js';
import { survey } from './survey.js';
import { nativeAgentIds } from './targets.js';
import { targetsNow } from './requests.js';
import { keepsEditedCopies } from './install-op.js';
import { isAbsolute, join } from 'node:path';

export interface UpdateRequest {
  /** SKIT ids or aliases; 'all' for every installation in the scope */
  ids: string[] | 'all';
  scope?: Scope;
  force?: boolean;
  /**
   * a version or git ref to move to, for one id: a hub install takes that release (`latest`: the
   * latest) and follows `^<it>` from then on. Default: the recorded source again: a git source
   * at its ref, a hub source at the newest release within its caret range.
   */
  version?: string;
  /** another source for one installation (it moved, or is published elsewhere now): its settings and aliases are kept */
  source?: string;
  resolvers?: ResolveOptions['resolvers'];
}

export interface UpdateOutcome {
  skitId: string;
  result?: MutationResult;
  /** warnings from resolving and validating the new release (deprecated, quarantined, validation) */
  diagnostics?: Diagnostic[];
  /** the error that stopped this SKIT's update (others still run) */
  error?: SfError;
  /** why a pass over the scope (`--all`) left it alone: another command removed it meanwhile */
  skipped?: string;
}

/** Thrown under the claim when a pass over the scope finds an installation gone: removed since the pass listed it. */
class RemovedMeanwhile extends Error {}

/**
 * `sf skit update`: re-resolves each installation's recorded source and moves it to what the
 * source now holds (a hub source: the newest installable release within its caret range). Locally modified installed files stop that SKIT's update (SF_E_MODIFIED names
 * them) unless forced; the other SKITs are still updated.
 */
export async function updateSkits(session: Session, req: UpdateRequest): Promise<UpdateOutcome[]> {
  assertOneIdFor(req);
  const { scope, projectRoot } = resolveScope(req.scope, session);
  const key = scopeKey(scope, projectRoot);
  const lib = await Library.open(session.paths, { create: false, readOnly: true });
  let chosen: InstallationRecord[] = [];
  try {
    const all = lib?.listInstallations() ?? [];
    chosen = req.ids === 'all' ? all.filter((i) => recordScopeKey(i) === key) : req.ids.map((id) => requireInScope(all, key, id));
  } finally {
    await lib?.close();
  }
  // one pass: the installations are read under the first claim and kept current after each
  // commit, their paths indexed once (see InstallationCache: another process's write reads again)
  const pass: Pass = { session: { ...session, libraryCache: new InstallationCache() }, owners: new PathOwners() };
  const outcomes: UpdateOutcome[] = [];
  for (const inst of chosen) {
    try {
      outcomes.push({ skitId: inst.skitId, ...(await updateOne(pass, inst, req)) });
    } catch (e) {
      if (e instanceof RemovedMeanwhile) {
        // `--all` means what is installed: one removed during the pass is gone, not failed
        outcomes.push({ skitId: inst.skitId, skipped: `${inst.skitId} was removed ${describeScope(key)} by another command during the update; skipped` });
        continue;
      }
      if (!isSfError(e)) throw e;
      outcomes.push({ skitId: inst.skitId, error: e });
    }
  }
  return outcomes;
}

/**
 * --version and --source name one SKIT's release or place: given to a whole scope, each SKIT would
 * move to whatever its own source calls that (every git SKIT to its own `v1`).
 */
function assertOneIdFor(req: UpdateRequest): void {
  for (const [option, value] of [['--version', req.version], ['--source', req.source]] as const) {
    if (value === undefined || (req.ids !== 'all' && req.ids.length === 1)) continue;
    throw new SfError('SF_E_USAGE', `${option} needs one SKIT id`, { hint: `sf skit update <owner/name> ${option} ${value}` });
  }
}

/**
 * Refuses to move an installation to a lower release version by itself: when the newest release a
 * hub offers is older than the installed one (the newer ones were quarantined or yanked), `update`
 * keeps what is installed and says so. An explicit --version moves anywhere.
 */
export function refuseDowngrade(inst: InstallationRecord, to: string | undefined, req: UpdateRequest): void {
  const from = inst.release.version;
  if (req.version !== undefined || req.source !== undefined || !from || !to || !parseSemver(from) || !parseSemver(to) || compareSemver(to, from) >= 0) return;
  const range = hubRange(inst.source, inst.release);
  throw new SfError('SF_E_CONFLICT', `the newest release the source offers for ${inst.skitId}${range ? ` within ${range}` : ''} is ${to}, older than the installed ${from}; not downgrading`, {
    hint: `newer releases may have been quarantined or withdrawn (see \`sf skit doctor\`); to move to ${to} anyway: sf skit update ${inst.skitId} --version ${to}`,
  });
}

/**
 * What to say when the recorded local source of `inst` cannot be resolved again. A path that no
 * longer exists has moved or been deleted ("check the path" does not help); a path that is still
 * there but holds no SKIT any more (its SKILL.md renamed, a link now pointing elsewhere) says so.
 * Any other error is returned as it is.
 */
export function localSourceError(inst: Pick<InstallationRecord, 'skitId' | 'source'>, e: unknown): unknown {
  if (!isSfError(e, 'SF_E_NOT_FOUND') || !isLocalPath(inst)) return e;
  const removeHint = `\`sf skit remove ${inst.skitId}\` drops the installation`;
  const data = (e.data ?? {}) as { path?: unknown; source?: unknown };
  // the local resolver's "no file or directory at <path>" carries the path it looked for
  if (data.path !== undefined) {
    return new SfError('SF_E_NOT_FOUND', `the recorded source of ${inst.skitId}, ${inst.source.canonical}, is gone`, {
      hint: `if it moved: sf skit update ${inst.skitId} --source <new path> (keeps its enable/disable settings); ${removeHint}`,
    });
  }
  // discovery's "no SKIT or Agent Skill found in <dir>" carries the source
  if (data.source !== undefined) {
    return new SfError('SF_E_NOT_FOUND', `the recorded source of ${inst.skitId}, ${inst.source.canonical}, is still there but holds no SKIT or Agent Skill any more`, {
      hint: `${e.hint ? `${e.hint}; ` : ''}${removeHint}`,
      data: e.data,
    });
  }
  return e;
}

/** What the SKITs of one update pass share: a session whose mutations keep one InstallationCache, and the paths of the installations indexed. */
interface Pass {
  session: Session;
  owners: PathOwners;
}

async function updateOne({ session, owners }: Pass, inst: InstallationRecord, req: UpdateRequest): Promise<{ result: MutationResult; diagnostics: Diagnostic[] }> {
  session.progress(`updating ${inst.skitId}`);
  // a git source names its ref in the source string: --version moves that ref (a hub source takes it as the version)
  const git = inst.source.kind === 'git' && req.source === undefined;
  const source = req.source ?? (git && req.version !== undefined ? withGitRef(inst.source.canonical, req.version) : inst.source.canonical);
  // a hub source stays within its caret range unless a version or another source is asked for
  const range = req.version === undefined && req.source === undefined ? hubRange(inst.source, inst.release) : undefined;
  const prep = await prepareRelease(session, source, { version: git ? undefined : req.version, range, resolvers: req.resolvers }).catch((e: unknown) => {
    // a recorded local path that is gone (or holds no SKIT any more): "check the path" does not help
    throw req.source === undefined ? localSourceError(inst, e) : e;
  });
  try {
    refuseDowngrade(inst, prep.prepared.release.version, req);
    const result = await runMutation(
      session,
      'update',
      async (lib) => {
        const installations = lib.listInstallations();
        // a SKIT the user named keeps the error; a pass over the scope lists what was installed when it began
        if (req.ids === 'all' && !findInScope(installations, recordScopeKey(inst), inst.skitId)) throw new RemovedMeanwhile();
        const before = requireInScope(installations, recordScopeKey(inst), inst.skitId);
        const { targets, moved } = targetsNow(session, before);
        const candidates = targets.flatMap((t) => prep.prepared.skills.map((s) => join(t.skillRoot, s.name)));
        const observations = await survey(session.paths, candidates, before);
        const plan = planInstall(
          { installations, observations, owners: owners.sync(installations) },
          {
            op: 'update',
            prepared: prep.prepared,
            scope: before.scope,
            projectRoot: before.projectRoot,
            targets,
            nativeAgents: nativeAgentIds(session),
            force: req.force ?? false,
            replaces: before.skitId,
            repoint: req.source !== undefined,
            moved,
            keepEditedCopies: keepsEditedCopies(session),
          },
          planEnv(session),
        );
        return plan;
      },
      { sourceRoot: prep.sourceRoot, hashes: prep.hashes },
    );
    return { result, diagnostics: prep.diagnostics };
  } finally {
    await prep.cleanup();
  }
}

/** A recorded source that is a path on this machine (a directory or an archive file), as opposed to a URL. */
function isLocalPath(inst: Pick<InstallationRecord, 'source'>): boolean {
  return inst.source.kind.startsWith('local') || (inst.source.kind === 'archive' && isAbsolute(inst.source.canonical));
}
