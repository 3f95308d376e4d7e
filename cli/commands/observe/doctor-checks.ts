import { request } from 'node:http';
import type { Socket } from 'node:net';
import type { Diagnostic } from '../../../core/errors/index.js';
import type { ObserveConfig } from '../../../core/observer/config.js';
import { destinationDrops, destinationProblem } from '../../../core/observer/status.js';
import type { ObserveInstallRecord } from '../../../adapters/observe/record.js';
import type { ObserverProbe } from './observer-state.js';
import type { ObserveContext } from '../../../adapters/observe/types.js';
import { claudeDesired, claudeUserSettings } from '../../../adapters/claude-code/observe.js';

/**
 * The observer-side findings of `sf observe doctor` (pure, but for probePort): a dead or
 * unresponsive observer, its port held by another program, a port mismatch, a running observer
 * that has not loaded the current config, destinations with a backlog, drops, a failing canary or
 * errors, normalization failures, and messages spooled while the observer was away. Host drift
 * comes from the adapters; documented tunables among it are relaxed here.
 */

/** Queue depth (records) above which a destination is reported as backed up. */
export const BACKLOG_RECORDS = 1000;

/** Who listens on the receiver port: nobody, an sf observer (answers GET /healthz), or another program. */
export type PortHolder = { kind: 'free' } | { kind: 'observer'; pid?: number } | { kind: 'foreign'; detail: string };

/**
 * Asks 127.0.0.1:`port` for the observer's GET /healthz (`{"ok": true, "version", "pid"}`). Used
 * while no observer of this $SF_HOME runs: anything that answers otherwise holds the port, and
 * the observer would fail to start (EADDRINUSE).
 */
export function probePort(port: number, timeoutMs = 1000): Promise<PortHolder> {
  return new Promise((resolve) => {
    let done = false;
    let socket: Socket | undefined;
    const finish = (h: PortHolder) => {
      if (done) return;
      done = true;
      req.destroy();
      socket?.destroy();
      resolve(h);
    };
    const req = request({ host: '127.0.0.1', port, path: '/healthz', method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 4096) chunks.push(c);
      });
      res.on('error', () => finish({ kind: 'foreign', detail: 'its answer to GET /healthz broke off' }));
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ok?: unknown; version?: unknown; pid?: unknown };
          if (res.statusCode === 200 && body.ok === true && typeof body.version === 'string') return finish({ kind: 'observer', ...(typeof body.pid === 'number' ? { pid: body.pid } : {}) });
        } catch {
          // not JSON: not an observer
        }
        finish({ kind: 'foreign', detail: `it answered HTTP ${res.statusCode} on GET /healthz, not as an sf observer` });
      });
    });
    req.on('socket', (s) => (socket = s));
    req.on('timeout', () => finish({ kind: 'foreign', detail: `it accepted a connection but did not answer GET /healthz within ${timeoutMs} ms` }));
    req.on('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ECONNREFUSED' || e.code === 'EADDRNOTAVAIL' || e.code === 'ENETUNREACH' ? { kind: 'free' } : { kind: 'foreign', detail: `it does not speak HTTP (${e.code ?? e.message})` }));
    req.end();
  });
}

/** What doctor learned beyond the probe: the port's holder (while no observer runs), the config the observer loaded. */
export interface DoctorExtras {
  port?: PortHolder;
  /** digest of the config the running observer loaded (its runtime file), and of config.json now */
  loadedConfig?: string;
  currentConfig?: string;
}

export function observerFindings(config: ObserveConfig, record: ObserveInstallRecord | undefined, probe: ObserverProbe, serviceActive?: boolean, extras: DoctorExtras = {}): Diagnostic[] {
  // nothing installed and no observer running: nothing to check, and nothing wrong
  if (!record && !probe.running) {
    return [{ code: 'SF_OBSERVE_NOT_INSTALLED', severity: 'info', message: 'observability is not installed on this machine, and no observer runs: nothing to check', hint: 'run `sf observe install` to see the plan, then again with --yes' }];
  }
  const out: Diagnostic[] = [];
  const start = record?.service?.kind === 'systemd' ? 'systemctl --user start sf-observer.service' : '`sf observe daemon` (or `sf observe install --yes` for a user service)';
  const port = config.receiver.port;
  if (!record) out.push({ code: 'SF_OBSERVE_NOT_INSTALLED', severity: 'warning', message: 'observability is not installed on this machine', hint: 'run `sf observe install` to see the plan, then again with --yes' });
  const taken = !probe.running && extras.port && extras.port.kind !== 'free' ? extras.port : undefined;
  if (!probe.running) {
    out.push({ code: 'SF_OBSERVE_DEAD', severity: 'error', message: `the observer is not running${probe.stalePid ? ` (its pid file names process ${probe.stalePid}, which is gone)` : ''}; hosts keep working, but their skill telemetry is lost (hooks and plugins spool theirs)`,
      hint: taken ? `it cannot start while port ${port} is taken (see SF_OBSERVE_PORT_TAKEN)` : `start it: ${start}` });
  }
  if (taken) {
    out.push({ code: 'SF_OBSERVE_PORT_TAKEN', severity: 'error',
      message: taken.kind === 'observer'
        ? `port ${port} on 127.0.0.1 is taken by another sf observer${taken.pid ? ` (pid ${taken.pid})` : ''}, one with another $SF_HOME: this one fails to start (EADDRINUSE)`
        : `port ${port} on 127.0.0.1 is taken by another program (${taken.detail}): the observer fails to start (EADDRINUSE)`,
      hint: `free the port (see who holds it: \`ss -ltnp 'sport = :${port}'\` or \`lsof -nP -iTCP:${port} -sTCP:LISTEN\`), or move the observer to a free port: \`sf observe install --yes --port <N>\` (re-points the hosts), then start it` });
  }
  if (probe.running && !probe.live) {
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
    const loaded = s.mode === 'fanout' ? s.destinations.map((d) => d.name) : undefined;
    const wanted = config.destinations.map((d) => d.name);
    const gone = loaded?.filter((n) => !wanted.includes(n)) ?? [];
    const added = loaded ? wanted.filter((n) => !loaded.includes(n)) : [];
    const changed = extras.loadedConfig !== undefined && extras.currentConfig !== undefined && extras.loadedConfig !== extras.currentConfig;
    if (gone.length || added.length || changed) {
      const names = (l: string[]) => l.map((n) => `"${n}"`).join(', ');
      const what = [...(gone.length ? [`still delivers to ${names(gone)}, no longer in config.json`] : []), ...(added.length ? [`does not deliver to ${names(added)} (not checked either)`] : [])];
      out.push({ code: 'SF_OBSERVE_CONFIG_STALE', severity: 'warning',
        message: `the running observer (started ${s.startedAt || 'earlier'}) has not loaded the current configuration${what.length ? `: it ${what.join(', and ')}` : ' (config.json changed since it started)'}`,
        hint: record?.service?.kind === 'systemd' ? 'restart it: systemctl --user restart sf-observer.service' : 'restart it: stop `sf observe daemon` and start it again' });
    }
    if (s.received.rejectedMessages > 0) out.push({ code: 'SF_OBSERVE_REJECTED', severity: 'info', message: `${s.received.rejectedMessages} adapter message(s) did not match the protocol and were rejected`, hint: 'run `sf observe update` so hooks and plugins match this version' });
  }
  if (config.destinations.length === 0) out.push({ code: 'SF_OBSERVE_NO_DESTINATION', severity: 'warning', message: 'no destination is configured: normalized events go nowhere', hint: 'add one, e.g. `sf observe destination add local file:$SF_HOME/observe/telemetry.jsonl` (a path of your choice), or an OTLP endpoint' });
  for (const d of s?.destinations ?? []) {
    if (!config.destinations.some((c) => c.name === d.name)) continue;
    if (d.queued.records > BACKLOG_RECORDS) out.push({ code: 'SF_OBSERVE_BACKLOG', severity: 'warning', message: `destination ${d.name} has ${d.queued.records} records queued${d.lastError ? ` (last error: ${d.lastError})` : ''}`, hint: 'check the destination is reachable; the queue is bounded and drops the oldest records when full' });
    const drops = destinationDrops(d);
    if (drops) out.push({ code: 'SF_OBSERVE_DROPPED', severity: 'warning', message: `destination ${d.name} dropped ${d.dropped} record(s): ${drops}`, hint: 'drops happen when the queue is full, records are too old, or the destination rejects them' });
    const problem = destinationProblem(d);
    if (problem) out.push({ code: 'SF_OBSERVE_DESTINATION_DOWN', severity: 'error', message: `destination ${d.name} ${problem}`, hint: destinationHint(d.name, d.type) });
  }
  if (probe.spool.lines > 0) out.push({ code: 'SF_OBSERVE_SPOOLED', severity: 'warning', message: `${probe.spool.lines} hook/plugin message(s) were spooled while the observer was unreachable`, hint: 'they are replayed when the observer starts; keep it running' });
  return out;
}

/** What to do about a failing destination: a file has a path to fix, an endpoint a network and credentials. */
function destinationHint(name: string, type: 'hub' | 'otlp' | 'file'): string {
  if (type === 'file') return `make sure the file's directory exists (or can be created) and is writable by you, or choose another path: \`sf observe destination add ${name} file:<path>\`, then restart the observer`;
  return 'check the endpoint, and that credential references (environment variables, files) are available to the observer';
}

/** A setting whose user value is documented to win (docs/observe.md: "tunable: your own value wins"). */
export interface Tunable {
  file: string;
  /** the settings key as the host adapter names it in its findings, e.g. env.OTEL_LOGS_EXPORT_INTERVAL */
  key: string;
  value: unknown;
}

/** Claude Code's tunables: the `tunable` entries of what Forge puts in its user settings. */
export function claudeTunables(ctx: ObserveContext): Tunable[] {
  const file = claudeUserSettings(ctx);
  return claudeDesired(ctx).entries.filter((e) => e.tunable).map((e) => ({ file, key: e.path.join('.'), value: e.value }));
}

/**
 * A tunable the user changed after install is their choice, not drift: the host adapter reports
 * it as an error (Forge recorded the value as its own), doctor reports it as info.
 */
export function relaxTunableDrift(findings: Diagnostic[], tunables: Tunable[]): Diagnostic[] {
  return findings.map((d) => {
    if (d.code !== 'SF_OBSERVE_DRIFT' || d.severity !== 'error') return d;
    const t = tunables.find((x) => x.file === d.file && d.message.includes(`"${x.key}" is `) && !d.message.includes(`"${x.key}" is missing`));
    if (!t) return d;
    return { ...d, code: 'SF_OBSERVE_USER_VALUE', severity: 'info',
      message: d.message.replace(/ \(observability needs [^)]*\)$/, '') + ` (Forge's default: ${JSON.stringify(t.value)}); a documented tunable, so your value is used`,
      hint: `to go back to Forge's default, delete "${t.key}" and run \`sf observe update\`` };
  });
}
