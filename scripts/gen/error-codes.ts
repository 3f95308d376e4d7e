import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Interrupted } from '../../cli/interrupted.js';
import { mdHeader, type GeneratedFile } from './files.js';

const SOURCE = 'core/errors/codes.ts';

interface CodesModule {
  ERROR_CODES: Record<string, { exit: number; http: number; summary: string }>;
  EXIT_CODES: Record<number, string>;
}

/** docs/errors.md: every SF_E_* code with its exit code and HTTP status, from the one registry the CLI and hub use. */
export async function generateErrorCodes(root: string): Promise<GeneratedFile[]> {
  const codes = (await import(pathToFileURL(join(root, SOURCE)).href)) as CodesModule;
  return [{ path: 'docs/errors.md', content: renderErrorsMd(codes) }];
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

function renderErrorsMd({ ERROR_CODES, EXIT_CODES }: CodesModule): string {
  const lines = [
    mdHeader(SOURCE),
    '',
    '# Error codes',
    '',
    'Every error `sf` prints and every error body the hub answers carries one of these stable codes:',
    '`error[SF_E_...]: <what was wrong, and where>` and a `hint:` line on a terminal, or',
    '`{ "error": { "code", "message", "location"?, "hint"?, "data"? } }` with `--json` (on stderr) and in',
    'hub responses. Codes are never renamed or reused; new ones are only added. The exit code and the',
    'HTTP status come from this table and nowhere else; a hub route may answer a more precise status',
    'that HTTP names for the case (414 for an over-long URL, 416 for an unsatisfiable Range).',
    '',
    '## Exit codes',
    '',
    '| Exit | Meaning |',
    '|---|---|',
    ...Object.entries(EXIT_CODES).map(([exit, meaning]) => `| ${exit} | ${cell(meaning)} |`),
    // not an error code: the status a shell gives a process Ctrl-C stopped (cli/interrupted.ts)
    `| ${Interrupted.EXIT_CODE} | interrupted: Ctrl-C at a prompt (\`Proceed? [y/N]\`, \`sf login\`'s token prompt), after saying what was left unchanged. Ctrl-C at any other moment (SIGINT) ends \`sf\` by the signal, which a shell reports as 130 too; \`sf hub serve\` and \`sf observe daemon\` stop cleanly instead (exit 0) |`,
    '',
    'A command that acts on several things and fails for some of them (`sf skit update` of a whole',
    'scope) exits with the highest exit code among those failures, however many there are',
    '(`exitCodeForFailures`), so a failure exits the same alone or among others.',
    '',
    '## Codes',
    '',
    '| Code | Exit | HTTP | Meaning |',
    '|---|---|---|---|',
    ...Object.entries(ERROR_CODES).map(([code, info]) => `| \`${code}\` | ${info.exit} | ${info.http} | ${cell(info.summary)} |`),
    '',
    'Validation diagnostics (`SKIT_*`, `SKILL_*`) are listed in [validation rules](validation-rules.md);',
    'they arrive inside an `SF_E_VALIDATION` error or a `sf skit validate` report. The findings of',
    '`sf skit doctor` (`SF_DRIFT_*`, `SF_HUB_*`, ...) are listed in [install](install.md), those of',
    '`sf observe doctor` (`SF_OBSERVE_*`, `SF_COLLECTOR_*`) in [observe](observe.md#findings).',
    '',
  ];
  return lines.join('\n');
}
