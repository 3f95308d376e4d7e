import { command, flag, optional, positional, string } from 'cmd-ts';
import { agentOption, agentOptions, option } from '../../args.js';
import { printDiagnostics, printJson } from '../../output/print.js';
import { printChange, recordJson } from './render.js';
import { cliSession, parseScope, parseTargetAgents } from './session.js';

const args = {
  skill: positional({ type: string, displayName: 'owner/name:skill', description: 'contained skill of an installed SKIT' }),
  ...agentOptions('agent', 'only for these agents: id[,id...] (default: every agent it is installed for)'),
  scope: option({ long: 'scope', type: optional(string), description: 'project or user (default: the project around the current directory, else user)' }),
  force: flag({ long: 'force', description: 'remove a locally modified skill directory when disabling' }),
  json: flag({ long: 'json', description: 'print the result as JSON' }),
};

function enablementCommand(enabled: boolean) {
  return command({
    name: enabled ? 'enable' : 'disable',
    description: enabled ? 'Enable one contained skill of an installed SKIT' : 'Disable one contained skill of an installed SKIT (the rest of the SKIT stays installed)',
    args,
    handler: async (a) => {
      const { setSkillEnabled } = await import('../../../core/install/remove-op.js');
      const session = await cliSession();
      const result = await setSkillEnabled(session, { skill: a.skill, enabled, scope: parseScope(a.scope), agents: await parseTargetAgents(agentOption(a)), force: a.force });
      // a choice recorded without changing what any agent sees (it matched the default) is unchanged
      const action = result.changed && result.plan.events.length > 0 ? (enabled ? 'enabled' : 'disabled') : 'unchanged';
      const { changeWarnings } = await import('../../../core/install/change-warnings.js');
      const diagnostics = result.record ? await changeWarnings(session, result.record) : [];
      if (a.json) printJson({ action, skill: a.skill, skit: result.record && recordJson(result.record), notes: result.plan.notes, diagnostics });
      else {
        printDiagnostics(diagnostics, 'stderr');
        printChange(`${action} ${a.skill} in`, result.record, result.plan.notes);
      }
    },
  });
}

export const enableCommand = enablementCommand(true);
export const disableCommand = enablementCommand(false);
