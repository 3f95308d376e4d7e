import type { Diagnostic } from '../../../core/errors/index.js';
import type { ObserveConfig } from '../../../core/observer/config.js';
import type { ObserveInstallRecord } from '../../../adapters/observe/record.js';
import type { ObserverProbe } from './observer-state.js';

/**
 * The observer-side findings of `sf observe doctor` (pure): a dead or unresponsive observer, a
 * port mismatch, destinations with a backlog, drops, a failing canary or errors, normalization
 * failures, and messages spooled while the observer was away. Host drift comes from the adapters.
 */

/** Queue depth (records) above which a destination is reported as backed up. */
export const BACKLOG_RECORDS = 1000;

export function observerFindings(config: ObserveConfig, record: ObserveInstallRecord | undefined, probe: ObserverProbe, serviceActive?: boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  const start = record?.service?.kind === 'systemd' ? 'systemctl --user start sf-observer.service' : '`sf observe daemon` (or `sf observe install --yes` for a user service)';
  if (!record) out.push({ code: 'SF_OBSERVE_NOT_INSTALLED', severity: 'warning', message: 'observability is not installed on this machine', hint: 'run `sf observe install` to see the plan, then again with --yes' });
  if (!probe.running) {
    out.push({ code: 'SF_OBSERVE_DEAD', severity: 'error', message: `the observer is not running${probe.stalePid ? ` (its pid file names process ${probe.stalePid}, which is gone)` : ''}; hosts keep working, but their skill telemetry is lost (hooks and plugins spool theirs)`, hint: `start it: ${start}` });
  } else if (!probe.live) {
    out.push({ code: 'SF_OBSERVE_UNRESPONSIVE', severity: 'error', message: `the observer (pid ${probe.pid}) does not answer on its socket`, hint: 'restart it; if it keeps hanging, run `sf observe daemon` in a terminal to see its errors' });
  }
  if (record?.service?.kind === 'systemd' && serviceActive === false) {
    out.push({ code: 'SF_OBSERVE_SERVICE_INACTIVE', severity: probe.running ? 'warning' : 'error', message: 'the sf-observer user service is not active', hint: 'systemctl --user status sf-observer.service; journalctl --user -u sf-observer.service' });
  }
  const s = probe.status;
  if (s && probe.running) {
    const port = Number(new URL(s.url).port);
    if (port !== config.receiver.port) out.push({ code: 'SF_OBSERVE_PORT', severity: 'error', message: `the observer listens on port ${port}, but hosts are configured for ${config.receiver.port}`, hint: 'restart the observer so it reads the current configuration' });
    if (s.collectorProblem) out.push({ code: 'SF_OBSERVE_COLLECTOR', severity: 'warning', message: `otelcol-contrib is enabled but not used: ${s.collectorProblem}`, hint: 'the built-in fan-out delivers meanwhile; fix the collector or disable it' });
    if (s.errors > 0) out.push({ code: 'SF_OBSERVE_NORMALIZE_ERRORS', severity: 'warning', message: `${s.errors} input(s) could not be normalized and were dropped${s.lastError ? ` (last: ${s.lastError})` : ''}`, hint: 'report this with `sf observe status --json`' });
    if (s.received.rejectedMessages > 0) out.push({ code: 'SF_OBSERVE_REJECTED', severity: 'info', message: `${s.received.rejectedMessages} adapter message(s) did not match the protocol and were rejected`, hint: 'run `sf observe update` so hooks and plugins match this version' });
  }
  if (config.destinations.length === 0) out.push({ code: 'SF_OBSERVE_NO_DESTINATION', severity: 'warning', message: 'no destination is configured: normalized events go nowhere', hint: 'add one, e.g. `sf observe destination add local file:$SF_HOME/observe/telemetry.jsonl` (a path of your choice), or an OTLP endpoint' });
  for (const d of s?.destinations ?? []) {
    if (!config.destinations.some((c) => c.name === d.name)) continue;
    if (d.queued.records > BACKLOG_RECORDS) out.push({ code: 'SF_OBSERVE_BACKLOG', severity: 'warning', message: `destination ${d.name} has ${d.queued.records} records queued${d.lastError ? ` (last error: ${d.lastError})` : ''}`, hint: 'check the destination is reachable; the queue is bounded and drops the oldest records when full' });
    if (d.dropped > 0) out.push({ code: 'SF_OBSERVE_DROPPED', severity: 'warning', message: `destination ${d.name} dropped ${d.dropped} record(s): ${Object.entries(d.droppedBy).map(([k, v]) => `${k} ${v}`).join(', ') || 'reason unknown'}`, hint: 'drops happen when the queue is full, records are too old, or the destination rejects them' });
    // the canary runs every few minutes: a delivery since it failed outranks it, and an error since
    // the last delivery (with records still queued) is a destination failing now
    const canaryDown = d.canary && !d.canary.ok && !((d.lastSuccessAt ?? 0) > d.canary.at);
    const failingNow = d.lastError !== undefined && d.queued.items > 0 && (d.lastErrorAt ?? 0) > (d.lastSuccessAt ?? 0);
    if (canaryDown || failingNow) {
      const why = failingNow ? d.lastError : d.canary!.error ?? `HTTP ${d.canary!.status}`;
      out.push({ code: 'SF_OBSERVE_DESTINATION_DOWN', severity: 'error', message: `destination ${d.name} ${failingNow ? 'fails to deliver' : 'fails its canary'}: ${why}`, hint: 'check the endpoint, and that credential references (environment variables, files) are available to the observer' });
    }
  }
  if (probe.spool.lines > 0) out.push({ code: 'SF_OBSERVE_SPOOLED', severity: 'warning', message: `${probe.spool.lines} hook/plugin message(s) were spooled while the observer was unreachable`, hint: 'they are replayed when the observer starts; keep it running' });
  return out;
}
