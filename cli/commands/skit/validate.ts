import { command, flag, optional, positional, string } from 'cmd-ts';
import { promises as fsp } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { hasErrno } from '../../../core/errors/index.js';
import { out, printDiagnostics, printJson } from '../../output/print.js';
import { green, red, sanitize } from '../../output/style.js';

const DESCRIPTOR_FILES = new Set(['README.md', 'SKILL.md', 'skill.md']);

export const validateCommand = command({
  name: 'validate',
  description: 'Validate a SKIT (README.md descriptor and every SKILL.md) or a single-skill directory; exit 1 when invalid',
  args: {
    path: positional({ type: optional(string), displayName: 'path', description: 'SKIT or skill directory, or a README.md / SKILL.md in one (default: the current directory)' }),
    json: flag({ long: 'json', description: 'print the stable JSON report (docs/cli-json.md)' }),
  },
  handler: async ({ path, json }) => {
    const { validateSkitDir } = await import('../../../core/skit/validate.js');
    const { validationReport } = await import('../../../core/skit/validation-report.js');
    const result = await validateSkitDir(await skitRoot(resolve(path ?? '.')));
    const report = validationReport(result);
    if (json) {
      printJson(report);
    } else {
      printDiagnostics(result.diagnostics);
      const { errors, warnings } = report.summary;
      const what = report.skit ? `${sanitize(report.skit.id)} (${report.skit.skills.length} skill${report.skit.skills.length === 1 ? '' : 's'})` : 'SKIT';
      const verdict = result.ok ? green('valid') : red('invalid');
      out(`${what}: ${verdict}, ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`);
    }
    if (!result.ok) process.exitCode = 1;
  },
});

/** A path to README.md or SKILL.md means the directory that holds it. */
async function skitRoot(path: string): Promise<string> {
  if (!DESCRIPTOR_FILES.has(basename(path))) return path;
  try {
    return (await fsp.stat(path)).isFile() ? dirname(path) : path;
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return path;
    throw e;
  }
}
