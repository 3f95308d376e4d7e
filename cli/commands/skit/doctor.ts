import { command, flag } from 'cmd-ts';
import { SfError } from '../../../core/errors/index.js';
import { out, printJson } from '../../output/print.js';
import { dim, green, red, sanitize, yellow } from '../../output/style.js';
import { hubResolvers } from './hub-resolvers.js';
import { cliSession } from './session.js';
import { hubFindings } from './hub-doctor.js';

export const doctorCommand = command({
  name: 'doctor',
  description: 'Check installed SKITs against the library: store, agent directories, config, interrupted commands',
  args: {
    fix: flag({ long: 'fix', description: 'repair what can be repaired without losing local edits' }),
    force: flag({ long: 'force', description: 'with --fix: also restore modified or replaced skill directories' }),
    json: flag({ long: 'json', description: 'print the findings as JSON' }),
    offline: flag({ long: 'offline', description: 'skip verifying hub installations against the hub' }),
  },
  handler: async ({ fix, force, json, offline }) => {
    // refused, as other options that need another are: ignored, it would look like a repair that found nothing to restore
    if (force && !fix) throw new SfError('SF_E_USAGE', '--force works only with --fix', { hint: 'sf skit doctor --fix --force also restores modified or replaced skill directories (no backup is made); sf skit doctor alone only reports' });
    const { runDoctor, orderedFinding } = await import('../../../core/install/doctor.js');
    const report = await runDoctor(await cliSession(), { fix, force, resolvers: hubResolvers });
    if (!offline) {
      const hub = await hubFindings();
      report.findings.push(...hub);
      if (hub.some((f) => f.severity === 'error' || f.severity === 'warning')) report.clean = false;
    }
    if (json) printJson({ findings: report.findings.map(orderedFinding), clean: report.clean });
    else {
      // one SKIT installed in several places gives the same finding once per place: the scope tells them apart
      const several = new Set(report.findings.filter((f) => f.skitId).map((f) => `${f.skitId}\u0000${f.scope}`)).size > 1;
      for (const f of report.findings) {
        const sev = f.fixed ? green('fixed') : f.severity === 'error' ? red('error') : f.severity === 'warning' ? yellow('warning') : dim('info');
        const where = several && f.scope ? `(${f.scope === 'user' ? 'user' : `project ${f.scope.slice('project:'.length)}`})` : undefined;
        const about = [f.skitId, where, f.agent].filter(Boolean).join(' ');
        out(`${sev}  ${f.code}  ${about ? `${sanitize(about)}: ` : ''}${sanitize(f.message)}`);
        if (f.hint && !f.fixed) out(dim(`    hint: ${sanitize(f.hint)}`));
      }
      out(report.clean ? green('everything is in order') : red(`problems remain: ${summary(report.findings)}`));
    }
    if (!report.clean) process.exitCode = 1;
  },
});

/** "1 error, 2 warnings left (3 fixed)": what is still open, so a --fix that mended only part says so. */
function summary(findings: readonly { severity: string; fixed?: boolean }[]): string {
  const open = (severity: string) => findings.filter((f) => !f.fixed && f.severity === severity).length;
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const fixed = findings.filter((f) => f.fixed).length;
  const parts = [[open('error'), 'error'], [open('warning'), 'warning']].filter(([n]) => n !== 0).map(([n, w]) => count(n as number, w as string));
  return `${parts.join(', ') || 'none'} left${fixed > 0 ? ` (${fixed} fixed)` : ''}`;
}
