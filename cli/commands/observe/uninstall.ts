import { rmdir } from 'node:fs/promises';
import { command, flag } from 'cmd-ts';
import { agentOption, agentOptions } from '../../args.js';
import { hasErrno } from '../../../core/errors/index.js';
import { removeFileDurable } from '../../../core/fs/atomic.js';
import type { ObserveHostId } from '../../../adapters/observe/types.js';
import { err, out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { loadObserveState, observeMutation, reportDiagnostics } from './shared.js';

/**
 * `sf observe uninstall`: removes exactly what the install record says Forge put in place — its
 * settings in host configs (user entries stay), its hook and plugin files, its service unit —
 * and the record. config.json, the queue and stored credentials stay (they are Forge's own
 * state, not the user's host configs). Without `--yes` it only lists what would be removed.
 */
export const uninstallCommand = command({
  name: 'uninstall',
  description: 'Remove Forge-managed observability settings, hook/plugin files and the service (dry run without --yes)',
  args: {
    yes: flag({ long: 'yes', short: 'y', description: 'remove (without it nothing is changed)' }),
    ...agentOptions('agents', 'only these hosts (default: every host observed); keeps the service'),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: (a) => observeMutation(a.yes, async () => {
    const [{ removeUserService }, { removeHosts }, { installRecordPath, writeInstallRecord }, { parseObserveAgents }] = await Promise.all([
      import('../../../core/observer/user-service.js'), import('../../../adapters/observe/hosts.js'), import('../../../adapters/observe/record.js'), import('../../../adapters/observe/registry.js'),
    ]);
    // a config.json with a mistake in it must not keep the user from uninstalling: the record is enough
    const state = await loadObserveState(process.env, undefined, { lenient: true });
    if (state.configProblem) err(`note: ${state.configProblem.message}; uninstall does not need it and goes on`);
    const record = state.record;
    if (!record) {
      if (a.json) return printJson({ removed: false, reason: 'not installed' });
      return out('observability is not installed; nothing to remove');
    }
    const only = parseObserveAgents(agentOption(a))?.map((x) => x.id);
    const ids = (Object.keys(record.hosts) as ObserveHostId[]).filter((id) => !only || only.includes(id));
    const whole = !only;
    if (!a.yes) {
      const plan = {
        hosts: ids.map((id) => ({ agent: id, configs: [...record.hosts[id]!.jsonEdits.map((e) => e.file), ...record.hosts[id]!.tomlEdits.map((e) => e.file)], files: record.hosts[id]!.files.map((f) => f.path) })),
        ...(whole && record.service?.unitFile ? { service: record.service.unitFile } : {}),
      };
      if (a.json) return printJson({ removed: false, plan });
      for (const h of plan.hosts) out(`would remove Forge's settings for ${h.agent} from ${[...h.configs, ...h.files].map(sanitize).join(', ')}`);
      if (plan.service) out(`would stop, disable and remove ${sanitize(plan.service)}`);
      return out('dry run: nothing was changed. Run again with --yes to remove.');
    }
    const removed = await removeHosts(state.ctx, record.hosts, ids);
    const service = whole ? await removeUserService(record.service, state.env) : undefined;
    const left = Object.keys(removed.records).length > 0 || removed.outcomes.some((o) => o.status === 'failed');
    if (whole && !left) {
      await removeFileDurable(installRecordPath(state.paths.home));
      await rmdir(state.ctx.hooksDir).catch((e: unknown) => (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTEMPTY') ? undefined : Promise.reject(e)));
    } else {
      await writeInstallRecord(state.paths.home, { ...record, updatedAt: new Date().toISOString(), hosts: removed.records, ...(whole ? { service: undefined } : {}) });
    }
    if (removed.outcomes.some((o) => o.status === 'failed')) process.exitCode = 1;
    if (a.json) return printJson({ removed: true, agents: removed.outcomes.map((o) => ({ agent: o.agent, status: o.status, diagnostics: o.diagnostics })), ...(service ? { service } : {}) });
    for (const o of removed.outcomes) out(`${o.status}: ${o.displayName}`);
    reportDiagnostics(removed.outcomes.flatMap((o) => o.diagnostics));
    if (service) out(`service: ${service}`);
    if (whole) out(`kept: ${sanitize(state.paths.config)} (observe settings, destinations), the queue and stored credentials under ${sanitize(state.paths.home)}`);
  }),
});
