import { command, flag } from 'cmd-ts';
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
    const { runDoctor } = await import('../../../core/install/doctor.js');
    const report = await runDoctor(await cliSession(), { fix, force, resolvers: hubResolvers });
    if (!offline) {
      const hub = await hubFindings();
      report.findings.push(...hub);
      if (hub.some((f) => f.severity === 'error' || f.severity === 'warning')) report.clean = false;
    }
    if (json) printJson(report);
    else {
      for (const f of report.findings) {
        const sev = f.fixed ? green('fixed') : f.severity === 'error' ? red('error') : f.severity === 'warning' ? yellow('warning') : dim('info');
        const about = [f.skitId, f.agent].filter(Boolean).join(' ');
        out(`${sev}  ${f.code}  ${about ? `${sanitize(about)}: ` : ''}${sanitize(f.message)}`);
        if (f.hint && !f.fixed) out(dim(`    hint: ${sanitize(f.hint)}`));
      }
      out(report.clean ? green('everything is in order') : red('problems remain'));
    }
    if (!report.clean) process.exitCode = 1;
  },
});
