import { command, flag, optional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { SfError } from '../../../core/errors/index.js';
import { compareIds } from '../../../core/text/compare.js';
import { err, out, printJson, printTable } from '../../output/print.js';

export const listCommand = command({
  name: 'list',
  description: 'List installed SKITs: release, scope, agents and enabled skills',
  args: {
    json: flag({ long: 'json', description: 'print the installation records as JSON' }),
    local: flag({ long: 'local', description: 'list the installed SKITs (the default)' }),
    remote: flag({ long: 'remote', description: 'list the SKITs on the Forge hub instead of the installed ones' }),
    hub: option({ long: 'hub', type: optional(string), description: 'with --remote: hub URL (default: the one you logged in to)' }),
    query: option({ long: 'query', type: optional(string), description: 'with --remote: search text' }),
    owner: option({ long: 'owner', type: optional(string), description: 'with --remote: only this owner' }),
    tag: option({ long: 'tag', type: optional(string), description: 'with --remote: only this tag' }),
  },
  handler: async ({ json, local, remote, hub, query, owner, tag }) => {
    if (local && remote) throw new SfError('SF_E_USAGE', '--local and --remote cannot be combined', { hint: 'use `sf skit list --local` for the installed SKITs or `sf skit list --remote` for the hub\'s' });
    if (remote) return (await import('./remote-list.js')).listRemote({ json, hub, query, owner, tag });
    // the remote filters on the local list would be ignored, and the list taken for a filtered one
    const remoteOnly = (['hub', 'query', 'owner', 'tag'] as const).filter((k) => ({ hub, query, owner, tag })[k] !== undefined);
    if (remoteOnly.length) {
      throw new SfError('SF_E_USAGE', `--${remoteOnly.join(', --')} ${remoteOnly.length === 1 ? 'works' : 'work'} only with --remote`, { hint: 'add --remote to search the hub, or leave the option out to list what is installed' });
    }
    const { Library } = await import('../../../core/library/db.js');
    const { sfPaths } = await import('../../../core/library/paths.js');
    const { isEnabled } = await import('../../../core/install/enablement.js');
    const { releaseLabel } = await import('../../../core/install/requests.js');
    const { hubRange } = await import('../../../core/sources/origin.js');
    const { recordJson } = await import('./render.js');
    const { projectRootGone } = await import('../../../core/install/context.js');
    // a project deleted or moved since: its record stays until `sf skit remove --project` (doctor says so too)
    const gone = (r: { scope: string; projectRoot?: string }) => r.scope === 'project' && r.projectRoot !== undefined && projectRootGone(r.projectRoot);
    const lib = await Library.open(sfPaths(process.env), { create: false, readOnly: true });
    const records = lib ? lib.listInstallations() : [];
    const interrupted = lib ? lib.listIntents().length : 0;
    await lib?.close();
    records.sort((a, b) => compareIds(a.skitId, b.skitId) || compareIds(a.scope, b.scope));
    if (json) {
      printJson(records.map((r) => ({ ...recordJson(r), ...(gone(r) ? { projectGone: true } : {}) })));
      return;
    }
    if (records.length === 0) out('no SKITs installed (install one with `sf add skit <source>`)');
    else {
      printTable(
        ['SKIT', 'RELEASE', 'SCOPE', 'AGENTS', 'SKILLS'],
        records.map((r) => {
          const on = r.skills.filter((s) => r.targets.some((t) => isEnabled(r.enablement, s, t.agent))).length;
          const range = hubRange(r.source, r.release);
          return [r.skitId, releaseLabel(r.release, r.bundleHash) + (range ? ` (${range})` : ''), r.scope === 'user' ? 'user' : `project ${r.projectRoot}${gone(r) ? ' (gone)' : ''}`, r.targets.map((t) => t.agent).join(',') || '-', `${on}/${r.skills.length} enabled`];
        }),
      );
    }
    if (interrupted > 0) err(`warning: ${interrupted} interrupted command(s); run \`sf skit doctor --fix\``);
    if (!json && records.some(gone)) err('warning: a project marked (gone) was deleted or moved; `sf skit remove <id> --project <path>` forgets its installation');
  },
});
