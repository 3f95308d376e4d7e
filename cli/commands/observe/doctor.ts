import { readFile } from 'node:fs/promises';
import { command, flag } from 'cmd-ts';
import type { Diagnostic } from '../../../core/errors/index.js';
import { out, printDiagnostics, printJson } from '../../output/print.js';
import { loadObserveState } from './shared.js';

/** The `config` digest the running observer wrote to its runtime file, if any. */
async function loadedConfigDigest(runtimeFile: string): Promise<string | undefined> {
  try {
    const { config } = JSON.parse(await readFile(runtimeFile, 'utf8')) as { config?: unknown };
    return typeof config === 'string' ? config : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `sf observe doctor`: drift in host configs (Forge's settings missing, changed or replaced by
 * another installer such as Git AI's), a dead or unresponsive observer, queue backlog, drops,
 * failing destinations and the spool. Exit code 1 when anything is an error.
 */
export const doctorCommand = command({
  name: 'doctor',
  description: 'Check the observer, destinations and host configs for problems (exit 1 on errors)',
  args: { json: flag({ long: 'json', description: 'print the findings as JSON' }) },
  handler: async ({ json }) => {
    const [{ hasErrors, sortDiagnostics }, { serviceState, unitChanged }, { diagnoseHosts }, { claudeTunables, observerFindings, probePort, relaxTunableDrift }, { probeObserver }, { observeConfigDigest }] = await Promise.all([
      import('../../../core/errors/index.js'), import('../../../core/observer/user-service.js'), import('../../../adapters/observe/hosts.js'), import('./doctor-checks.js'), import('./observer-state.js'),
      import('../../../core/observer/service-config.js'),
    ]);
    const state = await loadObserveState();
    const probe = await probeObserver(state);
    // not running: is something else on its port (the observer would fail with EADDRINUSE)?
    const port = probe.running ? undefined : await probePort(state.config.receiver.port);
    // running: the config it loaded (its runtime file; observers before this field have none)
    const loadedConfig = probe.running ? await loadedConfigDigest(state.paths.runtimeFile) : undefined;
    const findings: Diagnostic[] = observerFindings(state.config, state.record, probe, serviceState(state.record?.service, state.env).active, {
      ...(port ? { port } : {}), ...(loadedConfig ? { loadedConfig, currentConfig: observeConfigDigest(state.config) } : {}),
    });
    if (state.record) findings.push(...relaxTunableDrift(await diagnoseHosts(state.ctx, state.record.hosts), state.record.hosts['claude-code'] ? claudeTunables(state.ctx) : []));
    const unit = await unitChanged(state.record?.service);
    if (unit) findings.push({ code: 'SF_OBSERVE_DRIFT', severity: unit === 'missing' ? 'error' : 'warning', file: state.record!.service!.unitFile, message: `the observer's unit file is ${unit}`, hint: 'run `sf observe update` to write it again' });
    const sorted = sortDiagnostics(findings);
    if (hasErrors(sorted)) process.exitCode = 1;
    if (json) return printJson({ ok: !hasErrors(sorted), diagnostics: sorted });
    if (sorted.length === 0) out('observability: no problems found');
    else printDiagnostics(sorted, 'stdout', '(observer)');
  },
});
