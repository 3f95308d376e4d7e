import { command, flag, option, optional, string } from 'cmd-ts';
import { resolve } from 'node:path';
import { SfError } from '../../../core/errors/index.js';
import { out, printJson } from '../../output/print.js';
import type { SkillObservation, SkitInstallation } from '../../../core/annotations/index.js';
import { readJson } from './input.js';

interface EvidenceInput {
  installations: SkitInstallation[];
  observations?: SkillObservation[];
  scope?: string;
  host?: string;
  recorded?: string;
}

/**
 * `sf forge evidence`: renders `FORGE:SKIT_EVIDENCE` from the local canonical library (the SKITs
 * installed for the project and the user), or from `--data` JSON
 * {installations, observations?, scope?, host?, recorded?}.
 */
export const evidenceCommand = command({
  name: 'evidence',
  description: 'Render a FORGE:SKIT_EVIDENCE annotation from the local library (or --data JSON)',
  args: {
    data: option({ long: 'data', type: optional(string), description: 'JSON {installations, observations?, scope?, host?, recorded?} (- for stdin) instead of the library' }),
    project: option({ long: 'project', type: optional(string), description: 'project root whose installations to report (default: the current directory)' }),
    agent: option({ long: 'agent', type: optional(string), description: 'report enablement as this agent sees it (and only its installations)' }),
    scope: option({ long: 'scope', type: optional(string), description: 'what the evidence covers, e.g. "issue #42"' }),
    host: option({ long: 'host', type: optional(string), description: 'agent host of the unit of work, e.g. claude-code' }),
    partial: flag({ long: 'partial', description: 'end with the partial sentinel' }),
    json: flag({ long: 'json', description: 'print {fields, body} as JSON' }),
  },
  handler: async (args) => {
    const { buildSkitEvidence, renderAnnotation } = await import('../../../core/annotations/index.js');
    const input = args.data ? await evidenceFromJson(args.data) : await evidenceFromLibrary(resolve(args.project ?? '.'), args.agent);
    const fields = buildSkitEvidence(input.installations, input.observations, {
      recorded: input.recorded,
      scope: args.scope ?? input.scope,
      host: args.host ?? input.host ?? args.agent,
    });
    const body = renderAnnotation('SKIT_EVIDENCE', fields, { partial: args.partial });
    if (args.json) printJson({ fields, body });
    else out(body);
  },
});

async function evidenceFromLibrary(projectRoot: string, agent: string | undefined): Promise<EvidenceInput> {
  const { Library } = await import('../../../core/library/db.js');
  const { sfPaths } = await import('../../../core/library/paths.js');
  const { installationsFromLibrary } = await import('../../../core/annotations/index.js');
  const lib = await Library.open(sfPaths(process.env), { create: false });
  try {
    const records = lib ? lib.listInstallations() : [];
    return { installations: installationsFromLibrary(records, { projectRoot, agent }) };
  } finally {
    await lib?.close();
  }
}

async function evidenceFromJson(path: string): Promise<EvidenceInput> {
  const input = (await readJson(path, 'evidence data')) as Record<string, unknown> | null;
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
  return {
    installations: input.installations as SkitInstallation[],
    observations: input.observations as SkillObservation[] | undefined,
    scope: opt('scope'),
    host: opt('host'),
    recorded: opt('recorded'),
  };
}
