import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { SfError, type Diagnostic } from '../../../core/errors/index.js';
import { err, out, printDiagnostics, printJson } from '../../output/print.js';
import { red, sanitize } from '../../output/style.js';
import { printChange, recordJson } from './render.js';
import { cliSession, parseScope } from './session.js';
import { hubResolvers } from './hub-resolvers.js';

export const updateCommand = command({
  name: 'update',
  description: 'Update installed SKITs from their recorded sources (refuses to overwrite local edits unless --force)',
  args: {
    id: positional({ type: optional(string), displayName: 'owner/name', description: 'installed SKIT to update (or --all)' }),
    all: flag({ long: 'all', description: 'update every SKIT installed in this scope (the default without an id)' }),
    version: option({ long: 'version', type: optional(string), description: 'move to this version (hub) or git ref' }),
    scope: option({ long: 'scope', type: optional(string), description: 'project or user' }),
    force: flag({ long: 'force', description: 'overwrite locally modified installed files' }),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: async (a) => {
    if (a.id && a.all) throw new SfError('SF_E_USAGE', 'give either a SKIT id or --all, not both', { hint: 'sf skit update acme/kit, or sf skit update --all' });
    const { updateSkits } = await import('../../../core/install/update-op.js');
    const session = await cliSession();
    const outcomes = await updateSkits(session, { ids: a.id ? [a.id] : 'all', scope: parseScope(a.scope), force: a.force, version: a.version, resolvers: hubResolvers });
    const failed = outcomes.filter((o) => o.error);
    if (a.json) {
      printJson(
        outcomes.map((o) => ({
          skitId: o.skitId,
          action: o.error ? 'failed' : o.result!.changed ? 'updated' : 'unchanged',
          ...(o.result ? { skit: o.result.record && recordJson(o.result.record), notes: o.result.plan.notes, diagnostics: o.diagnostics ?? [] } : {}),
          ...(o.error ? { error: o.error.toJSON() } : {}),
        })),
      );
    } else {
      if (outcomes.length === 0) out('nothing is installed here');
      for (const o of outcomes) {
        if (o.error) {
          // the validation findings the hint refers to ('fix the errors listed above')
          if (o.error.code === 'SF_E_VALIDATION' && Array.isArray(o.error.data?.diagnostics)) printDiagnostics(o.error.data.diagnostics as Diagnostic[], 'stderr');
          // the SKIT is named once: most update errors already name it ("cannot update acme/kit: ...")
          const about = o.error.message.includes(o.skitId) ? '' : `${sanitize(o.skitId)}: `;
          err(`${red('error', 'stderr')}[${o.error.code}]: ${about}${sanitize(o.error.message)}`);
          if (o.error.hint) err(`  hint: ${sanitize(o.error.hint)}`);
        } else {
          printDiagnostics(o.diagnostics ?? [], 'stderr');
          printChange(o.result!.changed ? 'updated' : 'unchanged', o.result!.record, o.result!.plan.notes);
        }
      }
    }
    if (failed.length === 1 && outcomes.length === 1) {
      const { exitCodeFor } = await import('../../../core/errors/index.js');
      process.exitCode = exitCodeFor(failed[0].error!.code);
    } else if (failed.length > 0) process.exitCode = 1;
  },
});
