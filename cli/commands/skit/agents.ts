import { command, flag } from 'cmd-ts';
import { printJson, printTable } from '../../output/print.js';

export const agentsCommand = command({
  name: 'agents',
  description: 'List the agents sf can install skills for, with their project and global skill directories',
  args: {
    json: flag({ long: 'json', description: 'print the table as JSON' }),
  },
  handler: async ({ json }) => {
    const { allAdapters } = await import('../../../adapters/index.js');
    const { GENERIC_AGENTS } = await import('../../../adapters/generic/index.js');
    const rows = allAdapters().map((a) => {
      const entry = GENERIC_AGENTS.find((g) => g.id === a.id);
      // legacyUser: older homes the agent still reads when only they exist (OpenClaw's ~/.clawdbot)
      return { id: a.id, name: a.displayName, aliases: [...a.aliases], project: entry?.project ?? null, user: entry?.user ?? null, ...(entry?.legacyUser ? { legacyUser: entry.legacyUser } : {}), nativeEnablement: a.nativeEnablement };
    });
    if (json) printJson(rows);
    else {
      const globalDir = (r: (typeof rows)[number]) => (r.user ?? '-') + ('legacyUser' in r && r.legacyUser ? ` (or ${r.legacyUser.join(', ')})` : '');
      printTable(['AGENT', 'ALIASES', 'PROJECT DIR', 'GLOBAL DIR', 'ENABLEMENT'], rows.map((r) => [r.id, r.aliases.join(',') || '-', r.project ?? '-', globalDir(r), r.nativeEnablement ? 'native' : 'projection']));
    }
  },
});
