import { command, flag, option, string } from 'cmd-ts';
import { SfError } from '../../../core/errors/index.js';
import { out, printJson } from '../../output/print.js';
import type { SkillObservation, SkitInstallation } from '../../../core/annotations/index.js';
import { readJson } from './input.js';

/**
 * `sf forge evidence --data evidence.json`: renders `FORGE:SKIT_EVIDENCE` from
 * {installations, observations?, scope?, host?, recorded?}. Reading installations from the
 * local library is wired in once core/library lands.
 */
export const evidenceCommand = command({
  name: 'evidence',
  description: 'Render a FORGE:SKIT_EVIDENCE annotation (installed SKIT releases, skills, active skills)',
  args: {
    data: option({ long: 'data', type: string, description: 'JSON {installations, observations?, scope?, host?, recorded?} (- for stdin)' }),
    partial: flag({ long: 'partial', description: 'end with the partial sentinel' }),
    json: flag({ long: 'json', description: 'print {fields, body} as JSON' }),
  },
  handler: async ({ data, partial, json }) => {
    const { buildSkitEvidence, renderAnnotation } = await import('../../../core/annotations/index.js');
    const input = (await readJson(data, 'evidence data')) as Record<string, unknown> | null;
    if (typeof input !== 'object' || input === null || !Array.isArray(input.installations)) {
      throw new SfError('SF_E_USAGE', 'evidence data must be an object with an "installations" array', {
        hint: 'see docs/forge-annotations.md, "FORGE:SKIT_EVIDENCE"',
      });
    }
    if (input.observations !== undefined && !Array.isArray(input.observations)) {
      throw new SfError('SF_E_USAGE', '"observations" must be an array when present', { hint: 'leave it out when no observations were recorded' });
    }
    const opt = (k: string) => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
    // shapes are checked entry by entry inside buildSkitEvidence, with the offending index in the error
    const fields = buildSkitEvidence(input.installations as SkitInstallation[], input.observations as SkillObservation[] | undefined, { recorded: opt('recorded'), scope: opt('scope'), host: opt('host') });
    const body = renderAnnotation('SKIT_EVIDENCE', fields, { partial });
    if (json) printJson({ fields, body });
    else out(body);
  },
});
