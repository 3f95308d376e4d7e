import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { claudeObserveAdapter, claudeUserSettings } from '../../../adapters/claude-code/observe.js';
import type { ObserveContext } from '../../../adapters/observe/types.js';
import { tempDir } from '../../../test-support/index.js';
import { parseObserveConfig } from '../../../core/observer/config.js';
import type { ObserverStatus } from '../../../core/observer/status.js';
import { BACKLOG_RECORDS, claudeTunables, observerFindings, probePort, relaxTunableDrift } from './doctor-checks.js';
import { observeContext } from '../../../adapters/observe/registry.js';
import type { ObserverProbe } from './observer-state.js';

const config = parseObserveConfig({ receiver: { port: 14318 }, destinations: [{ name: 'team', type: 'otlp', endpoint: 'https://otel.example.com' }, { name: 'local', type: 'file', path: '/tmp/x.jsonl' }] });
const record = { schema: 1 as const, version: '0.1.0', installedAt: '', updatedAt: '', port: 14318, hosts: {} };

function status(over: Partial<ObserverStatus> = {}): ObserverStatus {
  return {
    pid: 42, version: '0.1.0', startedAt: '', updatedAt: '', url: 'http://127.0.0.1:14318', socket: '/s', mode: 'fanout', sessions: 0,
    received: { logs: 0, traces: 0, metrics: 0, pluginEvents: 0, outbox: 0, rejectedMessages: 0 }, normalized: { events: 0, spans: 0 }, errors: 0,
    destinations: [
      { name: 'team', type: 'otlp', queued: { items: 0, records: 0 }, delivered: 10, retried: 0, dropped: 0, droppedBy: {}, canary: { ok: true, at: 0, latencyMs: 1 } },
      { name: 'local', type: 'file', queued: { items: 0, records: 0 }, delivered: 10, retried: 0, dropped: 0, droppedBy: {} },
    ],
    ...over,
  };
}
const probe = (s: ObserverStatus, spoolLines = 0): ObserverProbe => ({ running: true, pid: 42, live: true, status: s, spool: { files: spoolLines ? 1 : 0, lines: spoolLines, bytes: spoolLines * 100 } });
const codes = (f: { code: string }[]) => f.map((d) => d.code).sort();

describe('sf observe doctor: observer findings', () => {
  it('nothing installed and no observer: one info that says so, no error (a dead observer is no problem then)', () => {
    const f = observerFindings(config, undefined, { running: false, live: false, spool: { files: 0, lines: 0, bytes: 0 } });
    assert.deepEqual(f.map((d) => [d.code, d.severity]), [['SF_OBSERVE_NOT_INSTALLED', 'info']]);
    assert.match(f[0].message, /not installed on this machine, and no observer runs: nothing to check/);
    // an observer started by hand without an install is still checked
    assert.ok(codes(observerFindings(config, undefined, probe(status()))).includes('SF_OBSERVE_NOT_INSTALLED'));
  });

  it('a healthy observer with working destinations has no findings', () => {
    assert.deepEqual(observerFindings(config, record, probe(status()), true), []);
  });

  it('reports backlog, drops, a failing canary, a port mismatch, normalization errors and spooled messages', () => {
    const s = status({
      url: 'http://127.0.0.1:15000', errors: 3, lastError: 'boom',
      destinations: [
        { name: 'team', type: 'otlp', queued: { items: 9, records: BACKLOG_RECORDS + 1 }, delivered: 0, retried: 40, dropped: 7, droppedBy: { queue_full: 5, expired: 2 }, lastError: 'HTTP 503', canary: { ok: false, at: 0, latencyMs: 5, status: 503, error: 'HTTP 503' } },
        { name: 'local', type: 'file', queued: { items: 0, records: 0 }, delivered: 3, retried: 0, dropped: 0, droppedBy: {} },
      ],
    });
    const f = observerFindings(config, record, probe(s, 4), true);
    assert.deepEqual(codes(f), ['SF_OBSERVE_BACKLOG', 'SF_OBSERVE_DESTINATION_DOWN', 'SF_OBSERVE_DROPPED', 'SF_OBSERVE_NORMALIZE_ERRORS', 'SF_OBSERVE_PORT', 'SF_OBSERVE_SPOOLED']);
    assert.match(f.find((d) => d.code === 'SF_OBSERVE_DROPPED')!.message, /queue_full 5, expired 2/);
    assert.equal(f.find((d) => d.code === 'SF_OBSERVE_DESTINATION_DOWN')!.severity, 'error');
  });

  it('judges a destination by what happened last: a delivery after a failed canary is fine, an error after the last delivery is not', () => {
    const s = status({
      destinations: [
        // recovered: the canary failed at t=1000, records were delivered at t=2000
        { name: 'team', type: 'otlp', queued: { items: 0, records: 0 }, delivered: 163, retried: 0, dropped: 0, droppedBy: {}, lastSuccessAt: 2000, canary: { ok: false, at: 1000, latencyMs: 5, error: 'connect ECONNREFUSED' } },
        // failing now: its last delivery was at t=1000, the error at t=3000, with records queued; the canary is old and fine
        { name: 'local', type: 'file', queued: { items: 1, records: 5 }, delivered: 3, retried: 1, dropped: 0, droppedBy: {}, lastSuccessAt: 1000, lastError: 'EEXIST', lastErrorAt: 3000, canary: { ok: true, at: 500, latencyMs: 1 } },
      ],
    });
    const down = observerFindings(config, record, probe(s), true).filter((d) => d.code === 'SF_OBSERVE_DESTINATION_DOWN');
    assert.deepEqual(down.map((d) => d.message), ['destination local fails to deliver: EEXIST']);
  });

  it('a dead observer (stale pid file), an inactive service and no destinations', () => {
    const f = observerFindings(parseObserveConfig({}), { ...record, service: { kind: 'systemd', enabled: true, unitName: 'sf-observer.service' } }, { running: false, stalePid: 999999, live: false, spool: { files: 0, lines: 0, bytes: 0 } }, false);
    assert.deepEqual(codes(f), ['SF_OBSERVE_DEAD', 'SF_OBSERVE_NO_DESTINATION', 'SF_OBSERVE_SERVICE_INACTIVE']);
    assert.match(f.find((d) => d.code === 'SF_OBSERVE_DEAD')!.message, /999999, which is gone/);
    assert.match(f.find((d) => d.code === 'SF_OBSERVE_DEAD')!.hint!, /systemctl --user start sf-observer/);
  });
});

describe('sf observe doctor: what blocks the observer and what it runs with', () => {
  const dead: ObserverProbe = { running: false, live: false, spool: { files: 0, lines: 0, bytes: 0 } };

  it('another program on the observer\'s port: reported as such, and the hint is not "start it" (it would fail with EADDRINUSE)', () => {
    const f = observerFindings(config, record, dead, undefined, { port: { kind: 'foreign', detail: 'it answered HTTP 404 on /healthz' } });
    const taken = f.find((d) => d.code === 'SF_OBSERVE_PORT_TAKEN');
    assert.equal(taken?.severity, 'error');
    assert.match(taken!.message, /14318/);
    assert.match(taken!.hint!, /--port/);
    assert.doesNotMatch(f.find((d) => d.code === 'SF_OBSERVE_DEAD')?.hint ?? '', /^start it/);
  });

  it('probes the port: nothing, another program, an observer (of another $SF_HOME)', async () => {
    const listen = (handler: (req: IncomingMessage, res: ServerResponse) => void) => new Promise<{ port: number; close: () => Promise<void> }>((resolve) => {
      const server = createServer(handler).listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(() => r())) }));
    });
    const other = await listen((_req, res) => res.writeHead(404).end('not found'));
    const observer = await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, version: '0.1.0', pid: 4242 })));
    const raw = await new Promise<{ port: number; close: () => Promise<void> }>((resolve) => {
      const server = createNetServer((s) => s.resume().end('SSH-2.0-OpenSSH\r\n')).listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(() => r())) }));
    });
    try {
      assert.equal((await probePort(other.port)).kind, 'foreign');
      assert.equal((await probePort(raw.port)).kind, 'foreign');
      assert.deepEqual(await probePort(observer.port), { kind: 'observer', pid: 4242 });
    } finally {
      await Promise.all([other.close(), observer.close(), raw.close()]);
    }
    assert.equal((await probePort(other.port)).kind, 'free');
  });

  it('a running observer that has not loaded the current config.json (a destination removed, another added)', () => {
    const s = status({ destinations: [{ name: 'a', type: 'file', queued: { items: 0, records: 0 }, delivered: 1, retried: 0, dropped: 0, droppedBy: {} }] });
    const current = parseObserveConfig({ receiver: { port: 14318 }, destinations: [{ name: 'b', type: 'otlp', endpoint: 'http://127.0.0.1:9' }] });
    const f = observerFindings(current, record, probe(s), true);
    const stale = f.find((d) => d.code === 'SF_OBSERVE_CONFIG_STALE');
    assert.equal(stale?.severity, 'warning');
    assert.match(stale!.message, /"a"/);
    assert.match(stale!.message, /"b"/);
    assert.match(stale!.hint!, /restart/);
    // the same destinations, but the config changed after the observer read it (its digest differs)
    const g = observerFindings(config, record, probe(status()), true, { loadedConfig: 'old', currentConfig: 'new' });
    assert.deepEqual(codes(g), ['SF_OBSERVE_CONFIG_STALE']);
    assert.deepEqual(observerFindings(config, record, probe(status()), true, { loadedConfig: 'same', currentConfig: 'same' }), []);
  });
});

describe('sf observe doctor: documented tunables', () => {
  it('a tunable the user changed after install (OTEL_LOGS_EXPORT_INTERVAL) is info, not an error; a required setting stays an error', async () => {
    const tmp = await tempDir('sf-doctor-tunable-');
    try {
      const sfHome = join(tmp.path, '.sf');
      const ctx: ObserveContext = observeContext({ HOME: tmp.path, SF_HOME: sfHome, CLAUDE_CONFIG_DIR: join(tmp.path, 'claude') }, 14318);
      await mkdir(join(tmp.path, 'claude'));
      const { record: rec } = await claudeObserveAdapter.apply(ctx, undefined);
      const file = claudeUserSettings(ctx);
      const settings = JSON.parse(await readFile(file, 'utf8'));
      settings.env.OTEL_LOGS_EXPORT_INTERVAL = '5000';
      settings.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:9999';
      await writeFile(file, JSON.stringify(settings, null, 2));
      const f = relaxTunableDrift(await claudeObserveAdapter.diagnose(ctx, rec), claudeTunables(ctx));
      const about = (k: string) => f.find((d) => d.message.includes(k));
      assert.equal(about('OTEL_LOGS_EXPORT_INTERVAL')?.severity, 'info');
      assert.match(about('OTEL_LOGS_EXPORT_INTERVAL')!.message, /5000/);
      assert.equal(about('OTEL_EXPORTER_OTLP_ENDPOINT')?.severity, 'error');
    } finally {
      await tmp.cleanup();
    }
  });
});
