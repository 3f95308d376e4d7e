import { array, command, flag, multioption, optional, string } from 'cmd-ts';
import { agentOption, agentOptions, integer, option } from '../../args.js';
import { checkPort } from '../../../core/runtime/port.js';
import { join, resolve } from 'node:path';
import { SfError } from '../../../core/errors/index.js';
import { FORGE_VERSION } from '../../../core/version.js';
import type { ObserveInstallRecord } from '../../../adapters/observe/record.js';
import { err, out, printJson } from '../../output/print.js';
import { CONTENT_OPT_IN, METADATA_ONLY } from './explain.js';
import type { ServiceOutcome } from './service-step.js';
import { lines, loadObserveState, observeMutation, reportDiagnostics } from './shared.js';

/**
 * `sf observe install`: one command for the observer service, the observability adapters of the
 * agents on this machine and the destinations. Without `--yes` it only explains and shows the
 * plan; every mutation needs that explicit consent, and each part has its own flag.
 */
export const installCommand = command({
  name: 'install',
  description: 'Set up skill observability: the observer service, host adapters and destinations (dry run without --yes)',
  args: {
    yes: flag({ long: 'yes', short: 'y', description: 'apply the changes (without it nothing is changed; the plan is shown)' }),
    ...agentOptions('agents', 'claude-code,codex,opencode | all | none (default: every agent found on this machine)'),
    destination: multioption({ long: 'destination', type: array(string), description: 'file:PATH | otlp:URL | hub | hub:URL, optionally NAME=...; repeatable' }),
    headerEnv: multioption({ long: 'header-env', type: array(string), description: 'HEADER=ENVVAR: an OTLP header whose value the observer reads from ENVVAR; repeatable' }),
    tokenEnv: option({ long: 'token-env', type: optional(string), description: 'hub destination: ENVVAR holding a device credential (default: create one with your sf login)' }),
    port: option({ long: 'port', type: optional(integer({ min: 1, max: 65535, what: 'a TCP port' })), description: 'the observer\'s OTLP/HTTP receiver port on 127.0.0.1 (default: configured, else 14318)' }),
    noService: flag({ long: 'no-service', description: 'do not install or start the observer as a user service' }),
    content: flag({ long: 'content', description: 'also collect local skill paths and commits (see the explanation)' }),
    collectorArchive: option({ long: 'collector-archive', type: optional(string), description: 'an otelcol-contrib release archive to verify against the pinned sha256, install and use instead of the built-in fan-out' }),
    json: flag({ long: 'json', description: 'print the plan or result as JSON' }),
  },
  handler: (a) => observeMutation(a.yes, async () => {
    if (a.port !== undefined) checkPort(a.port);
    const [{ updateObserveConfig }, { describeDestination, parseHeaderEnv }, { applyHosts, chooseHosts }, { writeInstallRecord }, { parseObserveAgents }, { mergeDestinations, planDestinations, realizeDestinations }, { installUserService }, { collectorLayout, writeCollectorConfig }] = await Promise.all([
      import('../../../core/observer/config.js'), import('../../../core/observer/destination-spec.js'), import('../../../adapters/observe/hosts.js'), import('../../../adapters/observe/record.js'),
      import('../../../adapters/observe/registry.js'), import('./destination-input.js'), import('./service-step.js'), import('../../../core/observer/collector/prepare.js'),
    ]);
    const state = await loadObserveState(process.env, a.port);
    const agents = agentOption(a);
    const adapters = agents?.trim().toLowerCase() === 'none' ? [] : parseObserveAgents(agents);
    const hosts = await chooseHosts(state.ctx, adapters);
    const headers = parseHeaderEnv(a.headerEnv);
    const specs = a.destination.length || state.config.destinations.length ? a.destination : [`local=file:${state.paths.home}/observe/telemetry.jsonl`];
    const planned = await planDestinations(specs, state.config, { headers, tokenEnv: a.tokenEnv, cwd: process.cwd(), env: process.env });
    const plan = {
      port: state.ctx.port,
      content: a.content || state.config.content.enabled,
      agents: hosts.map((h) => ({ agent: h.adapter.id, present: h.present, evidence: h.evidence, signal: h.adapter.signal, fidelity: h.adapter.fidelity })),
      destinations: planned.map((p) => ({ action: p.action, name: p.config.name, type: p.config.type, target: describeDestination(p.config), ...(p.createCredential ? { credential: 'a device credential will be created on the hub' } : {}) })),
      service: a.noService ? 'skipped (--no-service)' : 'systemd user unit sf-observer.service (written and enabled when systemd --user is available)',
      // the dry run checks the archive too: a plan that --yes would refuse is not a plan
      collector: a.collectorArchive ? (a.yes ? `otelcol-contrib from ${a.collectorArchive}` : await checkCollectorArchive(a.collectorArchive)) : state.config.collector.enabled ? 'otelcol-contrib (already enabled)' : 'built-in fan-out',
    };
    if (!a.yes) {
      if (a.json) return printJson({ applied: false, plan });
      lines([...METADATA_ONLY, '', ...CONTENT_OPT_IN, '']);
      printPlan(plan, agents?.trim().toLowerCase() === 'none');
      out('');
      out('dry run: nothing was changed. Run again with --yes to apply.');
      return;
    }

    const { ensureSfHome } = await import('../../../core/library/home.js');
    ensureSfHome(state.paths.home);
    // verified before anything else changes: a mismatching archive leaves the machine as it was
    const collector = a.collectorArchive ? await installCollector(a.collectorArchive, state.paths.collector) : undefined;
    const realized = await realizeDestinations(planned, state.paths.home);
    const config = await updateObserveConfig(state.paths.config, (observe) => ({
      ...mergeDestinations(observe, realized.configs),
      receiver: { ...(observe.receiver as object), port: state.ctx.port },
      ...(a.content ? { content: { enabled: true } } : {}),
      ...(realized.deviceId ? { deviceId: realized.deviceId } : {}),
      ...(collector ? { collector: { ...(observe.collector as object), enabled: true, binary: collector.binary } } : {}),
    }));
    const collectorConfig = config.collector.enabled ? await writeCollectorConfig(collectorLayout(state.paths.collector), config) : undefined;
    const now = new Date().toISOString();
    const recordOf = (hosts: ObserveInstallRecord['hosts'], service = state.record?.service): ObserveInstallRecord => ({
      schema: 1, version: FORGE_VERSION, installedAt: state.record?.installedAt ?? now, updatedAt: now, port: state.ctx.port, hosts, ...(service ? { service } : {}),
    });
    // recorded host by host: if the service step fails or the command is killed, uninstall still knows what to take out
    const applied = await applyHosts(state.ctx, hosts.map((h) => h.adapter), state.record?.hosts ?? {}, (recorded) => writeInstallRecord(state.paths.home, recordOf(recorded)));
    const service: ServiceOutcome = a.noService ? { kind: 'none', enabled: false, message: 'not installed (--no-service)' } : await installUserService(state, state.record?.service);
    await writeInstallRecord(state.paths.home, recordOf(applied.records, service.record ?? state.record?.service));
    // a unit the service step (re)started loads what was just written; any other running observer keeps what it loaded
    const restarted = service.kind === 'systemd' && service.enabled;
    const observer = restarted ? undefined : await (await import('./observer-state.js')).observerAfterChange(state, config);
    const systemd = (service.record ?? state.record?.service)?.kind === 'systemd';
    const failed = applied.outcomes.some((o) => o.status === 'failed');
    if (failed) process.exitCode = 1;
    const result = {
      applied: true, port: state.ctx.port, content: config.content.enabled,
      ...(config.collector.enabled ? { collector: { ...(collector?.binary ?? config.collector.binary ? { binary: collector?.binary ?? config.collector.binary } : {}), config: collectorLayout(state.paths.collector).managed, diagnostics: collectorConfig?.diagnostics ?? [] } } : {}),
      agents: applied.outcomes.map((o) => ({ agent: o.agent, status: o.status, diagnostics: o.diagnostics })),
      destinations: config.destinations.map((d) => ({ name: d.name, type: d.type, target: describeDestination(d) })),
      service: { kind: service.kind, enabled: service.enabled, message: service.message },
      observer: observer ?? { restarted: true, restartNeeded: false },
    };
    if (a.json) return printJson(result);
    lines(METADATA_ONLY);
    out('');
    for (const o of applied.outcomes) out(`${o.status === 'applied' ? 'observing' : o.status}: ${o.displayName}`);
    reportDiagnostics(applied.outcomes.flatMap((o) => o.diagnostics));
    for (const d of result.destinations) out(`destination ${d.name}: ${d.target}`);
    const { describeObserverAfterChange } = await import('./observer-state.js');
    const running = describeObserverAfterChange(state.ctx.port, observer, systemd, Object.keys(applied.records).length > 0);
    out(`${running.line}; service: ${service.message}`);
    if (running.note) err(running.note);
    if (result.collector) out(`collector: otelcol-contrib ${result.collector.binary ?? ''}; inspectable config ${result.collector.config}`);
    reportDiagnostics(result.collector?.diagnostics ?? []);
    if (!config.content.enabled) out('content collection: off (metadata only); `sf observe install --content --yes` turns it on');
  }),
});

function printPlan(plan: { port: number; content: boolean; agents: { agent: string; present: boolean; evidence: string[]; signal: string; fidelity: string }[]; destinations: { action: string; name: string; target: string; credential?: string }[]; service: string; collector: string }, noneChosen: boolean): void {
  out(`plan (observer on 127.0.0.1:${plan.port}, content collection ${plan.content ? 'ON' : 'off'}):`);
  if (plan.agents.length === 0) out(noneChosen ? '  agents: none (--agents none)' : '  agents: none found (pass --agents to choose)');
  for (const h of plan.agents) lines([`  agent ${h.agent}${h.present ? '' : ' (not detected; chosen with --agents)'}: ${h.signal}`, `    fidelity: ${h.fidelity}`]);
  for (const d of plan.destinations) lines([`  destination ${d.action} ${d.name}: ${d.target}${d.credential ? ` (${d.credential})` : ''}`]);
  out(`  service: ${plan.service}`);
  out(`  collector: ${plan.collector}`);
}

/** The dry run's collector line, once the archive matched the pin (a missing or mismatching one fails as --yes would). */
async function checkCollectorArchive(archive: string): Promise<string> {
  const [{ PINNED_COLLECTOR }, { platformKey, verifyCollectorArchive }] = await Promise.all([
    import('../../../core/observer/collector/pinned.js'), import('../../../core/observer/collector/verify.js'),
  ]);
  await verifyCollectorArchive(resolve(archive), PINNED_COLLECTOR);
  return `otelcol-contrib ${PINNED_COLLECTOR.version} from ${archive} (its sha256 matches the pin for ${platformKey()})`;
}

/** Verifies and installs otelcol-contrib from a local release archive (the pinned sha256 manifest decides). */
async function installCollector(archive: string, dir: string): Promise<{ binary: string }> {
  const [{ PINNED_COLLECTOR }, { collectorLayout }, { installCollectorFromArchive }] = await Promise.all([
    import('../../../core/observer/collector/pinned.js'), import('../../../core/observer/collector/prepare.js'), import('../../../core/observer/collector/verify.js'),
  ]);
  const layout = collectorLayout(dir);
  const record = await installCollectorFromArchive(resolve(archive), join(dir, 'bin'), layout.installRecord, PINNED_COLLECTOR);
  return { binary: record.binary };
}
