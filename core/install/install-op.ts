import { existsSync, mkdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { fsyncDirsSync, mkdirForDurable } from '../fs/atomic.js';
import { startNewFilesDurable } from '../fs/new-files.js';
import { walkTree } from '../skit/tree.js';
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
        await backUpEdits(session, plan);
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

/**
 * Before a forced install or update replaces installed skill directories that were edited
 * (Plan.overwrites), copies each one, as it is, to $SF_HOME/backups/edits/<id>.<time>/<agent>/<skill>/
 * (durably: the replacement is), and adds a note saying where. Runs under the claim, before the
 * plan is applied; nothing deletes these copies.
 */
export async function backUpEdits(session: Session, plan: Plan): Promise<void> {
  if (!plan.overwrites?.length) return;
  const stamp = session.now().replace(/[:.]/g, '-');
  const dir = join(session.paths.backups, 'edits', `${plan.skitId.replace(/\//g, '-')}.${stamp}`);
  // every directory that gains a name: the new ones' parents, and each one holding a copied entry
  const dirs = new Set<string>(mkdirForDurable(dir));
  const made = (path: string) => {
    for (let d = dirname(path); d.startsWith(dir); d = dirname(d)) dirs.add(d);
  };
  for (const edited of plan.overwrites) {
    const from = realpathSync(edited.path);
    const to = join(dir, edited.agent, basename(edited.path));
    const tree = await walkTree(from, { ignore: () => false });
    await startNewFilesDurable(tree.files.map((f) => ({ path: join(to, f.path), bytes: readFileSync(f.abs), mode: f.mode === 'exec' ? 0o755 : 0o644 })));
    tree.files.forEach((f) => made(join(to, f.path)));
    // links inside the skill directory are copied as links; special files are no skill's edits
    for (const odd of tree.oddities.filter((o) => o.kind === 'symlink')) {
      mkdirSync(dirname(join(to, odd.path)), { recursive: true });
      symlinkSync(readlinkSync(join(from, odd.path)), join(to, odd.path));
      made(join(to, odd.path));
    }
  }
  fsyncDirsSync(dirs);
  const what = plan.overwrites.map((e) => `${e.path} (${e.files.slice(0, 3).join(', ')}${e.files.length > 3 ? ', ...' : ''})`).join('; ');
  plan.notes.push(`${plan.skitId}: --force replaced skill directories with local edits; they were copied first to ${dir}: ${what}`);
}
