import { command, flag, optional, string } from 'cmd-ts';
import { agentOption, agentOptions, option } from '../../args.js';
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SfError } from '../../../core/errors/index.js';
import { parseRfc3339 } from '../../../core/text/rfc3339.js';
import { out, printJson } from '../../output/print.js';
import type { ObservedEvent, SkillObservation, SkitInstallation } from '../../../core/annotations/index.js';
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
    project: option({ long: 'project', type: optional(string), description: 'a directory of the project whose installations to report; its project is found as install finds it, the nearest ancestor with .git (default: the current directory)' }),
    ...agentOptions('agent', 'report enablement as this agent sees it (and only its installations)'),
    observations: option({ long: 'observations', type: optional(string), description: "the observer's file destination (OTLP JSON lines): report the skills that loaded as active" }),
    since: option({ long: 'since', type: optional(string), description: 'with --observations: only events at or after this ISO 8601 time' }),
    session: option({ long: 'session', type: optional(string), description: 'with --observations: only this host session id' }),
    scope: option({ long: 'scope', type: optional(string), description: 'what the evidence covers, e.g. "issue #42"' }),
    host: option({ long: 'host', type: optional(string), description: 'agent host of the unit of work, e.g. claude-code' }),
    partial: flag({ long: 'partial', description: 'end with the partial sentinel' }),
    json: flag({ long: 'json', description: 'print {fields, body} as JSON' }),
  },
  handler: async (args) => {
    const { buildSkitEvidence, renderAnnotation } = await import('../../../core/annotations/index.js');
    // a typo here would render a "nothing installed" annotation, ready to be posted: refuse it
    const agentName = agentOption(args);
    const agent = agentName === undefined ? undefined : (await import('../../../adapters/index.js')).getAdapter(agentName).id;
    const input = args.data ? await evidenceFromJson(args.data) : await evidenceFromLibrary(await projectDir(args.project ?? '.'), agent);
    if (!args.observations && (args.since !== undefined || args.session !== undefined)) {
      throw new SfError('SF_E_USAGE', `--${args.since !== undefined ? 'since' : 'session'} filters observations, and no --observations file was given`, {
        hint: 'pass --observations <file destination of `sf observe destination list`>, or leave the filter out',
      });
    }
    if (args.observations) input.observations = await observationsFromFile(args.observations, { sinceMs: sinceTime(args.since), session: args.session });
    const fields = buildSkitEvidence(input.installations, input.observations, {
      recorded: input.recorded,
      scope: args.scope ?? input.scope,
      host: args.host ?? input.host ?? agent,
    });
    const body = renderAnnotation('SKIT_EVIDENCE', fields, { partial: args.partial });
    if (args.json) printJson({ fields, body });
    else out(body);
  },
});

function sinceTime(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms = parseRfc3339(since);
  if (ms === undefined) {
    throw new SfError('SF_E_USAGE', `--since ${JSON.stringify(since.length > 40 ? `${since.slice(0, 40)}...` : since)} is not an RFC 3339 date or time`, {
      hint: 'e.g. --since 2026-08-09 or --since 2026-08-09T10:00:00Z (a time needs its zone: Z or +02:00)',
    });
  }
  return ms;
}

/**
 * The project root `path` belongs to, found as the install commands find it (the nearest ancestor
 * with .git, never $HOME) and through links: installations are recorded under that real root, so
 * a subdirectory or a symlinked path would otherwise report "None" for an installed project.
 * A path that is not a directory would report evidence for nothing.
 */
async function projectDir(path: string): Promise<string> {
  const abs = resolve(path);
  const info = await stat(abs).catch(() => undefined);
  if (!info) throw new SfError('SF_E_NOT_FOUND', `--project ${path} does not exist`, { location: { file: abs }, hint: 'pass a directory of the project, or leave --project out to report on the project around the current directory' });
  if (!info.isDirectory()) throw new SfError('SF_E_USAGE', `--project ${path} is not a directory`, { location: { file: abs }, hint: 'pass a directory of the project, not a file in it' });
  const [{ explicitProjectRoot }, { userHome }] = await Promise.all([import('../../../core/install/context.js'), import('../../../core/library/paths.js')]);
  return explicitProjectRoot(abs, { cwd: process.cwd(), home: userHome(process.env) });
}

/** A recorded project root through its links (roots are recorded real; one recorded otherwise still matches). */
function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root; // a project that is gone keeps its recorded name
  }
}

async function evidenceFromLibrary(projectRoot: string, agent: string | undefined): Promise<EvidenceInput> {
  const { Library } = await import('../../../core/library/db.js');
  const { sfPaths } = await import('../../../core/library/paths.js');
  const { installationsFromLibrary } = await import('../../../core/annotations/index.js');
  const lib = await Library.open(sfPaths(process.env), { create: false, readOnly: true });
  try {
    const records = (lib ? lib.listInstallations() : []).map((r) => (r.projectRoot === undefined ? r : { ...r, projectRoot: realRoot(r.projectRoot) }));
    return { installations: installationsFromLibrary(records, { projectRoot, agent }) };
  } finally {
    await lib?.close();
  }
}

/** Active skills from the OTLP JSON lines the observer's file destination writes. */
async function observationsFromFile(path: string, window: { sinceMs?: number; session?: string }): Promise<SkillObservation[]> {
  const { readFile } = await import('node:fs/promises');
  const { decodeOtlpRequest } = await import('../../../core/telemetry/otlp/decode.js');
  const { logsRequestToEnvelopes } = await import('../../../core/telemetry/envelope-otlp.js');
  const { observationsFromEvents } = await import('../../../core/annotations/index.js');
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new SfError(e.code === 'ENOENT' ? 'SF_E_NOT_FOUND' : 'SF_E_IO', `could not read observations from ${path}: ${e.message}`, {
      location: { file: path },
      hint: 'pass the file destination of `sf observe destination list`',
    });
  });
  const events: ObservedEvent[] = [];
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (!line.trim() || !line.includes('"resourceLogs"')) continue;
    try {
      const req = await decodeOtlpRequest('logs', Buffer.from(line), 'json');
      // one by one: spreading a line with a huge batch into push() would overflow the stack
      if (req.signal === 'logs') for (const e of logsRequestToEnvelopes(req)) events.push(e);
    } catch (e) {
      throw new SfError('SF_E_OTLP_DECODE', `line ${lineNo} of ${path} is not an OTLP/JSON logs export: ${(e as Error).message}`, {
        location: { file: path, line: lineNo },
        hint: 'the file must be written by the observer (one OTLP/JSON export per line); a torn last line can be deleted',
      });
    }
  }
  return observationsFromEvents(events, window);
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
