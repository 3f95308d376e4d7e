import { command, flag } from 'cmd-ts';
import { out, printJson, printTable } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { withoutNulls } from '../../output/without-nulls.js';
import { loadObserveState } from './shared.js';

/** `sf observe status`: the observer, its destinations (queue, delivered, retried, dropped, canary), hosts and links. */
export const statusCommand = command({
  name: 'status',
  description: 'Show the observer, its destinations and queues, and the hosts it observes',
  args: { json: flag({ long: 'json', description: 'print the status as JSON' }) },
  handler: async ({ json }) => {
    const [{ describeDestination }, { probeObserver }, { destinationProblem, destinationState }] = await Promise.all([import('../../../core/observer/destination-spec.js'), import('./observer-state.js'), import('../../../core/observer/status.js')]);
    const state = await loadObserveState();
    const probe = await probeObserver(state);
    const s = probe.status;
    const destinations = state.config.destinations.map((d) => {
      const live = s?.destinations.find((x) => x.name === d.name);
      return {
        name: d.name, type: d.type, target: describeDestination(d),
        queued: live?.queued ?? null, delivered: live?.delivered ?? null, retried: live?.retried ?? null, dropped: live?.dropped ?? null,
        droppedBy: live?.droppedBy ?? {}, canary: live?.canary ?? null, lastError: live?.lastError ?? null, lastWarning: live?.lastWarning ?? null,
        // what is wrong now (an error or failed canary older than a later delivery is not)
        problem: live ? destinationProblem(live) ?? null : null,
        // the table's state column: the problem, else what doctor reports as SF_OBSERVE_DROPPED, else ok
        state: live ? destinationState(live) : null,
      };
    });
    const hosts = Object.values(state.record?.hosts ?? {}).map((h) => ({
      agent: h.agent, port: h.port, appliedAt: h.appliedAt, version: h.version,
      configs: [...h.jsonEdits.map((e) => e.file), ...h.tomlEdits.map((e) => e.file)], files: h.files.map((f) => f.path),
    }));
    const result = {
      installed: state.record !== undefined,
      port: state.config.receiver.port,
      content: state.config.content.enabled,
      observer: {
        running: probe.running, live: probe.live, ...(probe.pid ? { pid: probe.pid } : {}), ...(probe.stalePid ? { stalePid: probe.stalePid } : {}),
        ...(s ? { url: s.url, version: s.version, startedAt: s.startedAt, updatedAt: s.updatedAt, mode: s.mode, sessions: s.sessions, received: s.received, normalized: s.normalized, errors: s.errors } : {}),
      },
      destinations, hosts, links: state.config.links, spool: probe.spool, ...(state.record?.service ? { service: state.record.service } : {}),
    };
    // counters the observer has not reported (it is not running) are unknown: left out
    if (json) return printJson(withoutNulls(result));
    const o = result.observer;
    out(o.running ? `observer: running (pid ${o.pid}${s ? `, ${s.url}, ${s.mode}, since ${s.startedAt}` : ''})${o.live ? '' : ' — not answering; showing its last status file'}` : `observer: not running${o.stalePid ? ` (stale pid file: ${o.stalePid})` : ''}`);
    if (s) out(`  sessions ${s.sessions}; received logs ${s.received.logs}, metrics ${s.received.metrics}, traces ${s.received.traces}, plugin events ${s.received.pluginEvents}, inventory ${s.received.outbox}; normalized events ${s.normalized.events}, spans ${s.normalized.spans}; errors ${s.errors}`);
    out(`install: ${result.installed ? `yes (port ${result.port}, content collection ${result.content ? 'on' : 'off'})` : 'no — run `sf observe install`'}`);
    if (destinations.length === 0) out('destinations: none');
    else printTable(['destination', 'target', 'queued', 'delivered', 'retried', 'dropped', 'state'], destinations.map((d) => [
      d.name, d.target, d.queued ? `${d.queued.records} rec` : '-', d.delivered ?? '-', d.retried ?? '-', d.dropped ?? '-',
      d.state ?? '-',
    ]));
    for (const h of hosts) out(`host ${h.agent}: ${[...h.configs, ...h.files].map(sanitize).join(', ')}`);
    for (const l of result.links) out(`link ${sanitize(l.path)} -> ${sanitize(l.repository)}`);
    if (probe.spool.lines) out(`spooled while the observer was unreachable: ${probe.spool.lines} message(s); replayed when it starts`);
  },
});
