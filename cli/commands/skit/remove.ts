import { command, flag, optional, positional, string } from 'cmd-ts';
import { agentOption, agentOptions, option } from '../../args.js';
import { out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { printChange, recordJson } from './render.js';
import { cliSession, parseScope, parseTargetAgents } from './session.js';

export const removeCommand = command({
  name: 'remove',
  description: 'Remove an installed SKIT (or only its projection for some agents)',
  args: {
    id: positional({ type: string, displayName: 'owner/name', description: 'installed SKIT id or alias' }),
    ...agentOptions('agent', 'only for these agents: id[,id...]'),
    scope: option({ long: 'scope', type: optional(string), description: 'project or user (default: the project around the current directory, else user)' }),
    project: option({ long: 'project', type: optional(string), description: 'the project the SKIT is installed in, from anywhere (also a project that was deleted or moved)' }),
    force: flag({ long: 'force', description: 'remove locally modified skill directories too' }),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: async (a) => {
    const { removeSkit } = await import('../../../core/install/remove-op.js');
    const session = await cliSession();
    const result = await removeSkit(session, { id: a.id, scope: parseScope(a.scope), project: a.project, agents: await parseTargetAgents(agentOption(a)), force: a.force });
    const removedAgents = result.plan.steps.flatMap((s) => (s.kind === 'unproject' ? [s.target.agent] : []));
    if (a.json) {
      // skit: the record that stays, for agents not removed; left out when none stays. notes: the
      // user's entries left in Forge's places (a script must not take the removal for a clean one)
      const notes = result.plan.notes;
      printJson({ action: 'removed', skitId: result.plan.skitId, agents: removedAgents, ...(result.record ? { skit: recordJson(result.record) } : {}), ...(notes.length > 0 ? { notes } : {}) });
      return;
    }
    out(`removed ${sanitize(result.plan.skitId)} for ${removedAgents.join(', ') || 'no agent'}`);
    // the notes name entries of the user's that were left in Forge's place
    printChange('still installed:', result.record, result.plan.notes);
  },
});
