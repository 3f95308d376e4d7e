import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { SfError, type Diagnostic } from '../../../core/errors/index.js';
import type { UpdateOutcome } from '../../../core/install/update-op.js';
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
    version: option({ long: 'version', type: optional(string), description: 'with an id: move to this version (hub: then follow ^<it>; `latest`: the latest release) or git ref' }),
    source: option({ long: 'source', type: optional(string), description: 'with an id: take the SKIT from this source from now on (it moved), keeping its settings' }),
    scope: option({ long: 'scope', type: optional(string), description: 'project or user' }),
    force: flag({ long: 'force', description: 'overwrite locally modified installed files (they are backed up first)' }),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: async (a) => {
    // a blank id is a mistake (an unset variable), not "every SKIT": that takes --all or no id
    if (a.id !== undefined && a.id.trim() === '') throw new SfError('SF_E_USAGE', 'the SKIT id is empty', { hint: 'give owner/name (sf skit update acme/kit), or --all to update every SKIT of the scope' });
    if (a.id !== undefined && a.all) throw new SfError('SF_E_USAGE', 'give either a SKIT id or --all, not both', { hint: 'sf skit update acme/kit, or sf skit update --all' });
    const { updateSkits } = await import('../../../core/install/update-op.js');
    const session = await cliSession();
    const outcomes = await updateSkits(session, { ids: a.id !== undefined ? [a.id] : 'all', scope: parseScope(a.scope), force: a.force, version: a.version, source: a.source, resolvers: hubResolvers });
    if (a.json) {
      printJson(
        outcomes.map((o) => ({
          skitId: o.skitId,
          action: actionOf(o) === 'downgraded' ? 'updated' : actionOf(o),
          ...(o.result ? { skit: o.result.record && recordJson(o.result.record), notes: o.result.plan.notes, diagnostics: o.diagnostics ?? [] } : {}),
          ...(o.error ? { error: o.error.toJSON() } : {}),
          ...(o.skipped ? { note: o.skipped } : {}),
          ...(actionOf(o) === 'downgraded' ? { downgraded: o.result!.plan.downgrade } : {}),
        })),
      );
    } else {
      if (outcomes.length === 0) out('nothing is installed here');
      for (const o of outcomes) {
        if (o.skipped) err(`note: ${sanitize(o.skipped)}`);
        else if (o.error) {
          // the validation findings the hint refers to ('fix the errors listed above')
          if (o.error.code === 'SF_E_VALIDATION' && Array.isArray(o.error.data?.diagnostics)) printDiagnostics(o.error.data.diagnostics as Diagnostic[], 'stderr');
          // the SKIT is named once: most update errors already name it ("cannot update acme/kit: ...")
          const about = o.error.message.includes(o.skitId) ? '' : `${sanitize(o.skitId)}: `;
          err(`${red('error', 'stderr')}[${o.error.code}]: ${about}${sanitize(o.error.message)}`);
          if (o.error.hint) err(`  hint: ${sanitize(o.error.hint)}`);
        } else {
          printDiagnostics(o.diagnostics ?? [], 'stderr');
          printChange(actionOf(o), o.result!.record, o.result!.plan.notes);
        }
      }
      // a pass over the scope ends with what became of each SKIT, on stdout with the successes
      if (a.id === undefined && outcomes.length > 0) out(summary(outcomes));
    }
    const failed = outcomes.flatMap((o) => (o.error ? [o.error.code] : []));
    if (failed.length > 0) {
      const { exitCodeForFailures } = await import('../../../core/errors/codes.js');
      process.exitCode = exitCodeForFailures(failed);
    }
  },
});

type Action = 'updated' | 'downgraded' | 'unchanged' | 'skipped' | 'failed';

function actionOf(o: UpdateOutcome): Action {
  if (o.skipped) return 'skipped';
  if (o.error) return 'failed';
  if (!o.result!.changed) return 'unchanged';
  return o.result!.plan.downgrade ? 'downgraded' : 'updated';
}

/** `2 updated, 1 unchanged, 1 failed` (downgrades, and SKITs removed during the pass, counted apart when there are any). */
function summary(outcomes: readonly UpdateOutcome[]): string {
  const count = (action: Action) => outcomes.filter((o) => actionOf(o) === action).length;
  const downgraded = count('downgraded');
  const skipped = count('skipped');
  return [`${count('updated')} updated`, ...(downgraded > 0 ? [`${downgraded} downgraded`] : []), `${count('unchanged')} unchanged`, ...(skipped > 0 ? [`${skipped} skipped`] : []), `${count('failed')} failed`].join(', ');
}
