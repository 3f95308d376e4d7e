import { command, flag } from 'cmd-ts';
import { SfError } from '../../../core/errors/index.js';
import { FORGE_VERSION } from '../../../core/version.js';
import { err, out, printJson } from '../../output/print.js';
import { loadObserveState, observeMutation, reportDiagnostics } from './shared.js';

/**
 * `sf observe update`: re-applies Forge's managed blocks and files for every host the install
 * record lists (after an upgrade of sf, a port change, or another installer's edits), and
 * refreshes the service unit when one was installed. User settings are never touched.
 */
export const updateCommand = command({
  name: 'update',
  description: 'Re-apply Forge-managed host settings, hook/plugin files and the service unit',
  args: { json: flag({ long: 'json', description: 'print the result as JSON' }) },
  handler: ({ json }) => observeMutation(true, async () => {
    const [{ applyHosts }, { writeInstallRecord }, { observeAdapter }, { installUserService }] = await Promise.all([
      import('../../../adapters/observe/hosts.js'), import('../../../adapters/observe/record.js'), import('../../../adapters/observe/registry.js'), import('./service-step.js'),
    ]);
    const state = await loadObserveState();
    if (!state.record) throw new SfError('SF_E_NOT_FOUND', 'observability is not installed on this machine', { hint: 'run `sf observe install --yes` first' });
    const adapters = Object.keys(state.record.hosts).map(observeAdapter);
    const applied = await applyHosts(state.ctx, adapters, state.record.hosts);
    const service = state.record.service?.kind === 'systemd' ? await installUserService(state, state.record.service) : undefined;
    await writeInstallRecord(state.paths.home, {
      ...state.record, version: FORGE_VERSION, updatedAt: new Date().toISOString(), port: state.ctx.port, hosts: applied.records,
      ...(service?.record ? { service: service.record } : {}),
    });
    if (applied.outcomes.some((o) => o.status === 'failed')) process.exitCode = 1;
    // the hosts now point at the configured port: does the running observer listen there?
    const { describeObserverAfterChange, observerAfterChange } = await import('./observer-state.js');
    const observer = service?.kind === 'systemd' && service.enabled ? undefined : await observerAfterChange(state, state.config);
    const running = describeObserverAfterChange(state.ctx.port, observer, (service?.record ?? state.record.service)?.kind === 'systemd');
    if (json) return printJson({ port: state.ctx.port, agents: applied.outcomes.map((o) => ({ agent: o.agent, status: o.status, diagnostics: o.diagnostics })), ...(service ? { service: service.message } : {}), observer: observer ?? { restarted: true, restartNeeded: false } });
    for (const o of applied.outcomes) out(`${o.status === 'applied' ? 'updated' : o.status}: ${o.displayName}`);
    reportDiagnostics(applied.outcomes.flatMap((o) => o.diagnostics));
    if (service) out(`service: ${service.message}`);
    if (running.note) err(running.note);
  }),
});
