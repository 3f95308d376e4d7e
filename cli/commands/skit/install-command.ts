import { command, flag, optional, positional, string } from 'cmd-ts';
import { agentOption, agentOptions, option } from '../../args.js';
import { isSfError, SfError, type Diagnostic } from '../../../core/errors/index.js';
import type { Plan } from '../../../core/install/plan-types.js';
import { err, printDiagnostics, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { printChange, recordJson } from './render.js';
import { cliSession, parseAgents, parseScope } from './session.js';
import { hubResolvers } from './hub-resolvers.js';
import { trace } from '../../../core/trace/startup.js';
import { Interrupted } from '../../interrupted.js';

/**
 * The one implementation behind `sf add skit` and `sf skit install`: both commands are built
 * from these args and this handler, so they cannot differ in output, telemetry or state.
 */
export const installArgs = {
  source: positional({ type: string, displayName: 'source', description: 'local path, archive, SKILL.md URL, git URL[#ref][:subpath], or a Forge hub id owner/name[@version]' }),
  version: option({ long: 'version', type: optional(string), description: 'release version (hub: `sf skit update` then follows ^<it>) or git ref' }),
  ...agentOptions('agent', 'agents to install for: id[,id...] or all (default: the agents detected)'),
  scope: option({ long: 'scope', type: optional(string), description: 'project (default inside a project) or user' }),
  alias: option({ long: 'alias', type: optional(string), description: 'another id (owner/name) this installation answers to' }),
  yes: flag({ long: 'yes', short: 'y', description: 'do not ask for confirmation' }),
  force: flag({ long: 'force', description: 'overwrite locally modified installed files (backed up first), or replace an installation of the same id from another source' }),
  json: flag({ long: 'json', description: 'print the result as JSON' }),
};

type InstallArgs = { source: string; version?: string; agent?: string; agents?: string; scope?: string; alias?: string; yes: boolean; force: boolean; json: boolean };

export async function runInstall(args: InstallArgs): Promise<void> {
  const { installSkit } = await import('../../../core/install/install-op.js');
  trace('install code loaded');
  const session = await cliSession();
  const interactive = !args.yes && !args.json && Boolean(process.stdin.isTTY) && Boolean(process.stderr.isTTY);
  try {
    const outcome = await installSkit(session, {
      source: args.source,
      version: args.version,
      scope: parseScope(args.scope),
      agents: await parseAgents(agentOption(args)),
      force: args.force,
      alias: args.alias,
      confirm: interactive ? confirmPlan : undefined,
      // loaded only for a source that is not a local path
      resolvers: hubResolvers,
    });
    if (!args.json) printDiagnostics(outcome.diagnostics, 'stderr');
    if (outcome.cancelled && !args.json) err('cancelled; nothing was changed');
    const action = outcome.cancelled ? 'cancelled' : !outcome.changed ? 'unchanged' : outcome.plan.before ? 'updated' : 'installed';
    // an older release than the one installed is said as such (the JSON action stays `updated`)
    const downgrade = action === 'updated' ? outcome.plan.downgrade : undefined;
    if (args.json) printJson({ action, skit: outcome.record && recordJson(outcome.record), notes: outcome.plan.notes, diagnostics: outcome.diagnostics, ...(downgrade ? { downgraded: downgrade } : {}) });
    else printChange(downgrade ? 'downgraded' : action, outcome.record, outcome.plan.notes);
  } catch (e) {
    if (!args.json && isSfError(e, 'SF_E_VALIDATION') && Array.isArray(e.data?.diagnostics)) printDiagnostics(e.data.diagnostics as Diagnostic[], 'stderr');
    if (isSfError(e, 'SF_E_NAME_COLLISION')) throw await updateInstead(e, args, session);
    throw e;
  }
}

/** A collision with a provisional install of the same repository at another ref: the hint names the update that keeps its settings. */
async function updateInstead(e: SfError, args: InstallArgs, session: Awaited<ReturnType<typeof cliSession>>): Promise<SfError> {
  const { updateInsteadOfCollision } = await import('../../../core/install/plan-checks.js');
  const { resolveScope } = await import('../../../core/install/context.js');
  const { scopeKey } = await import('../../../core/library/types.js');
  const { scope, projectRoot } = resolveScope(parseScope(args.scope), session);
  return updateInsteadOfCollision(e, args.source, args.version, scopeKey(scope, projectRoot));
}

/** Asks on the terminal before an install changes anything. */
async function confirmPlan(plan: Plan): Promise<boolean> {
  if (plan.steps.length === 0) return true;
  const after = plan.after!;
  err(`${plan.before ? 'Update' : 'Install'} ${sanitize(after.skitId)} (${after.skills.length} skill${after.skills.length === 1 ? '' : 's'}) for ${after.targets.map((t) => t.agent).join(', ')}:`);
  for (const t of after.targets) err(`  ${t.agent}: ${sanitize(t.skillRoot)}`);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // Ctrl-C is an interrupt (exit 130); Ctrl-D ends the input without an answer (a usage error)
  const ended = new Promise<never>((_, reject) => {
    rl.once('SIGINT', () => reject(new Interrupted('cancelled; nothing was changed')));
    rl.once('close', () => reject(new SfError('SF_E_USAGE', 'cancelled at end of input; nothing was changed', { hint: 'run the command again and answer y, or pass --yes' })));
  });
  ended.catch(() => undefined); // also rejects when the prompt closes after an answer
  try {
    const answer = await Promise.race([rl.question('Proceed? [y/N] '), ended]);
    return /^y(es)?$/i.test(answer.trim());
  } catch (e) {
    err('');
    throw e;
  } finally {
    rl.close();
  }
}

export const installCommand = command({
  name: 'install',
  description: 'Install a SKIT (the same command as `sf add skit`)',
  args: installArgs,
  handler: runInstall,
});
