import { unlink } from 'node:fs/promises';
import { observerPluginEventSchema, type ObserverPluginEvent } from '../../schemas/generated/observer-plugin-event.js';
import { observerSocketMessageSchema, type ObserverSocketMessage } from '../../schemas/generated/observer-socket-message.js';
import { SfError, hasErrno } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { checkSchema } from '../skit/schemas.js';
import { otelHostArch, otelOsType } from '../telemetry/host-resource.js';
import { createNormalizer, type NormalizedOutput } from '../telemetry/normalize/index.js';
import { nowNanos } from '../telemetry/time.js';
import type { OtlpLogsRequest, OtlpRequest } from '../telemetry/otlp/types.js';
import { FORGE_VERSION } from '../version.js';
import type { InventoryEvent } from '../library/types.js';
import { readObserveConfig, type ObserveConfig } from './config.js';
import { prepareCollector } from './collector/prepare.js';
import type { CollectorManifest } from './collector/pinned.js';
import { resolveTargets } from './destinations.js';
import { runCanary } from './canary.js';
import { DeliveryWorker } from './delivery.js';
import { LibraryIndex } from './library-index.js';
import { acquirePidLock } from './lock.js';
import { OUTBOX_CHUNK_BYTES, OUTBOX_CHUNKS_PER_POLL, readOutboxFrom } from './outbox-tail.js';
import { observerPaths, type ObserverPaths } from './paths.js';
import { ExportPipeline } from './pipeline.js';
import { startReceiver } from './receiver.js';
import { loadOrCreateSecret } from './secret.js';
import { SessionRegistry } from './sessions.js';
import { claudeConfigDirOf, claudeSessionLookup } from './claude-sessions.js';
import { codexHomeOf, codexSessionLookup } from './codex-sessions.js';
import { HostSessionSource, type SessionSink } from './host-sessions.js';
import { replaySpool } from './spool.js';
import { observeConfigDigest } from './service-config.js';
import { startSocketServer } from './socket-server.js';
import type { ObserverStatus } from './status.js';
import { ObserverStore } from './store.js';

/**
 * The local observer service: one per user. Wires the pid lock, the session-registry socket, the
 * OTLP/HTTP receiver, the normalizer (enriched from the library), the outbox tail and the export
 * pipeline with its LMDB queue and delivery workers. `sf observe daemon` runs it in the foreground.
 */

export interface ObserverOptions {
  env?: NodeJS.ProcessEnv;
  /** receiver port override (0: any free port) */
  port?: number;
  /** config override (default: the `observe` key of $SF_HOME/config.json) */
  config?: ObserveConfig;
  /** the manifest collector mode verifies otelcol-contrib against (default: the pinned one) */
  collectorManifest?: CollectorManifest;
  settleAfterSeconds?: number;
  outboxPollMs?: number;
  housekeepingMs?: number;
  canaryIntervalMs?: number;
  retry?: { baseBackoffMs: number; maxBackoffMs: number };
  /** OTLP exports waiting for normalization at most; more are refused with 429 (default 32) */
  maxPendingExports?: number;
}

export interface ObserverHandle {
  url: string;
  port: number;
  socketPath: string;
  paths: ObserverPaths;
  status(): ObserverStatus;
  /** queues everything buffered (events, spans and the client metrics) now */
  flush(): void;
  /** runs every destination's canary now */
  canaries(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the observer. Throws SF_E_CONFLICT when another observer holds the lock. */
export async function startObserver(options: ObserverOptions = {}): Promise<ObserverHandle> {
  const env = options.env ?? process.env;
  const paths = observerPaths(env);
  const lock = await acquirePidLock(paths.pidFile);
  const cleanups: (() => Promise<void>)[] = [() => lock.release()];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    return await startLocked(paths, env, options, cleanups, cleanup);
  } catch (e) {
    await cleanup();
    throw e;
  }
}

async function startLocked(paths: ObserverPaths, env: NodeJS.ProcessEnv, options: ObserverOptions, cleanups: (() => Promise<void>)[], cleanup: () => Promise<void>): Promise<ObserverHandle> {
  const config = options.config ?? (await readObserveConfig(paths.config));
  const key = await loadOrCreateSecret(paths.secretKey);
  const store = await ObserverStore.open(paths.queueDb);
  cleanups.push(() => store.close());
  const library = new LibraryIndex(paths);
  await library.refresh(true);
  const sessions = new SessionRegistry(key);
  await sessions.setLinks(config.links);

  // collector mode when enabled and verified; otherwise (or on any problem) the built-in fan-out
  const collector = config.collector.enabled ? await prepareCollector(paths.collector, config, env, options.collectorManifest) : undefined;
  const collectorTarget = collector && 'target' in collector ? collector : undefined;
  if (collectorTarget) cleanups.push(() => collectorTarget.close());
  const targets = collectorTarget ? [collectorTarget.target] : resolveTargets(config.destinations, env);
  for (const name of store.knownDestinations()) if (!targets.some((t) => t.name === name) && store.size(name).items) store.purge(name);
  const workers = targets.map((t) => new DeliveryWorker(t, store, { maxAgeMs: config.queue.maxAgeHours * 3600_000, ...options.retry }));
  const pipeline = new ExportPipeline({
    store, workers, maxBatchRecords: config.batch.maxRecords, batchDelayMs: config.batch.delayMs, maxQueueRecords: config.queue.maxRecords,
    metricsResource: {
      'service.name': 'sf-observer', 'service.version': FORGE_VERSION, 'agent.adapter.name': 'sf-observer', 'agent.adapter.version': FORGE_VERSION,
      'os.type': otelOsType(process.platform), 'host.arch': otelHostArch(process.arch), ...(config.deviceId ? { 'forge.device.id': config.deviceId } : {}),
    },
  });
  const normalizer = createNormalizer({
    observer: 'sf-observer', adapterVersion: FORGE_VERSION, content: config.content.enabled, now: nowNanos,
    resolveSkill: (q) => library.resolve(q),
    session: (host, id) => sessions.info(host, id), settleAfterSeconds: options.settleAfterSeconds,
  });

  const counters = { logs: 0, traces: 0, metrics: 0, pluginEvents: 0, outbox: 0, rejectedMessages: 0, refusedExports: 0, events: 0, spans: 0, errors: 0 };
  let lastError: string | undefined;
  const normalize = (produce: () => NormalizedOutput): NormalizedOutput | undefined => {
    try {
      const out = produce();
      counters.events += out.events.length;
      counters.spans += out.spans.length;
      return out;
    } catch (e) {
      // fail open: a record the normalizer cannot handle is dropped and counted, never fatal
      counters.errors++;
      lastError = (e as Error).message.slice(0, 300);
      return undefined;
    }
  };
  // journaled before it returns: a failure to store (disk full) reaches the caller, which must
  // not acknowledge what it sent
  const submit = (produce: () => NormalizedOutput) => {
    const out = normalize(produce);
    if (out) pipeline.submit(out);
  };

  const handlePlugin = async (raw: unknown): Promise<boolean> => {
    if (checkSchema(observerPluginEventSchema, raw).length) {
      counters.rejectedMessages++;
      return false;
    }
    const ev = raw as ObserverPluginEvent;
    counters.pluginEvents++;
    if (ev.cwd && !sessions.info(ev.host, ev.session_id)) await sessions.register({ type: 'register', agent: ev.host, session_id: ev.session_id, cwd: ev.cwd, ...(ev.pid ? { pid: ev.pid } : {}), ...(ev.host_version ? { host_version: ev.host_version } : {}) });
    await library.refresh();
    submit(() => normalizer.plugin(ev));
    return true;
  };

  const dispatch = async (raw: unknown): Promise<Record<string, unknown>> => {
    const id = raw && typeof raw === 'object' ? (raw as { id?: unknown }).id : undefined;
    const findings = checkSchema(observerSocketMessageSchema, raw);
    if (findings.length) {
      counters.rejectedMessages++;
      return { ok: false, ...(id !== undefined ? { id } : {}), error: { code: 'SF_E_USAGE', message: `not a valid observer message: ${findings[0].message}` } };
    }
    const msg = raw as ObserverSocketMessage;
    const ok = (extra: Record<string, unknown> = {}) => ({ ok: true, ...(msg.id !== undefined ? { id: msg.id } : {}), ...extra });
    switch (msg.type) {
      case 'register': {
        const s = await sessions.register(msg);
        return ok({ repository_resolved: s.identity.resolved && !s.ambiguous });
      }
      case 'heartbeat':
        return sessions.heartbeat(msg) ? ok() : { ok: false, ...(msg.id !== undefined ? { id: msg.id } : {}), error: { code: 'SF_E_NOT_FOUND', message: 'the session is not registered; register it again' } };
      case 'unregister':
        sessions.unregister(msg);
        return ok();
      case 'event':
        return (await handlePlugin(msg.event)) ? ok() : { ok: false, ...(msg.id !== undefined ? { id: msg.id } : {}), error: { code: 'SF_E_USAGE', message: 'not a valid plugin event' } };
      case 'status':
        return ok({ status: status() });
      case 'ping':
        return ok({ version: FORGE_VERSION, pid: process.pid });
    }
  };

  // Codex and Claude Code run no Forge hook: their sessions are registered from the hosts' own
  // records (Codex rollout files, Claude transcripts), and their telemetry keeps them alive
  const sink: SessionSink = {
    touch: (host, id) => sessions.heartbeat({ type: 'heartbeat', agent: host, session_id: id }),
    register: (host, id, found) =>
      sessions.register({ type: 'register', agent: host, session_id: id, cwd: found.cwd, ...(found.pid ? { pid: found.pid } : {}), ...(found.hostVersion ? { host_version: found.hostVersion } : {}) }),
  };
  const sessionSources = [codexSessionLookup(codexHomeOf(env)), claudeSessionLookup(claudeConfigDirOf(env))].map((l) => new HostSessionSource(l, sink));
  const registerSessions = async (req: OtlpLogsRequest) => {
    for (const source of sessionSources) await source.registerFrom(req).catch((e: unknown) => (lastError = (e as Error).message.slice(0, 300)));
  };
  // one request after the other, in arrival order: a host's later batch (a tool result) must never
  // be normalized before its earlier one (the tool decision)
  let otlpChain: Promise<void> = Promise.resolve();
  // back-pressure: decoded requests wait in memory, and a host's exporter gives up after a few
  // seconds; past this many the receiver answers 429 + Retry-After and the host retries later
  const maxPending = options.maxPendingExports ?? 32;
  let pendingExports = 0;
  const onOtlp = (req: OtlpRequest): Promise<void> => {
    if (pendingExports >= maxPending) {
      counters.refusedExports++;
      throw new SfError('SF_E_RATE_LIMIT', `the observer is busy: ${pendingExports} exports are waiting to be normalized`, {
        hint: 'retry after the Retry-After delay (OTLP exporters do this on their own)', data: { retryAfterSeconds: 2 },
      });
    }
    pendingExports++;
    const step = otlpChain.then(() => library.refresh().catch(() => undefined)).then(() => (req.signal === 'logs' ? registerSessions(req) : undefined)).then(() => {
      if (req.signal === 'logs') {
        counters.logs++;
        submit(() => normalizer.logs(req));
      } else if (req.signal === 'metrics') {
        counters.metrics++;
        submit(() => normalizer.metrics(req));
      } else {
        counters.traces++;
        submit(() => normalizer.traces(req));
      }
    });
    // the chain goes on after a request that could not be stored; that request's sender hears of it
    otlpChain = step.catch(() => undefined).finally(() => void pendingExports--);
    return step;
  };

  // what a crashed observer had journaled goes to the queues before anything new
  pipeline.flush();
  const socket = await startSocketServer(paths.socket, dispatch);
  cleanups.push(() => socket.close());
  const receiver = await startReceiver(options.port ?? config.receiver.port, {
    otlp: onOtlp,
    pluginEvents: async (items) => {
      let accepted = 0;
      for (const item of items) if (await handlePlugin(item)) accepted++;
      return { accepted, rejected: items.length - accepted };
    },
    messages: (items) => Promise.all(items.map(dispatch)),
    health: () => ({ ok: true, version: FORGE_VERSION, pid: process.pid }),
  });
  cleanups.push(() => receiver.close());
  for (const w of workers) w.start();
  cleanups.push(() => Promise.all(workers.map((w) => w.stop())).then(() => undefined));

  const startedAt = new Date().toISOString();
  const status = (): ObserverStatus => ({
    pid: process.pid, version: FORGE_VERSION, startedAt, updatedAt: new Date().toISOString(), url: receiver.url, socket: paths.socket,
    mode: collectorTarget ? 'collector' : 'fanout', ...(collector && 'problem' in collector ? { collectorProblem: collector.problem } : {}),
    sessions: sessions.list().length,
    received: { logs: counters.logs, traces: counters.traces, metrics: counters.metrics, pluginEvents: counters.pluginEvents, outbox: counters.outbox, rejectedMessages: counters.rejectedMessages, refusedExports: counters.refusedExports },
    normalized: { events: counters.events, spans: counters.spans },
    errors: counters.errors, ...(lastError ? { lastError } : {}),
    destinations: targets.map((t) => ({ name: t.name, type: t.type, queued: store.size(t.name), ...store.stats(t.name) })),
  });
  const writeStatus = () => writeFileAtomic(paths.statusFile, JSON.stringify(status(), null, 2) + '\n', { mode: 0o600 });
  const canaries = async () => {
    await Promise.all(targets.map(async (t) => store.setCanary(t.name, await runCanary(t))));
  };

  const submitInventory = (records: readonly InventoryEvent[], offset: number) => {
    const outs: NormalizedOutput[] = [];
    for (const rec of records) {
      counters.outbox++;
      const out = normalize(() => normalizer.inventory(rec));
      if (out) outs.push(out);
    }
    // the offset moves in the transaction that journals the records: a crash re-reads them or has them
    pipeline.submit({ events: outs.flatMap((o) => o.events), spans: outs.flatMap((o) => o.spans), metrics: outs.flatMap((o) => o.metrics) }, { name: 'outbox', value: offset });
  };
  let outboxBusy = false;
  const pollOutbox = async () => {
    if (outboxBusy) return;
    outboxBusy = true;
    try {
      // a look at the library on every tick, not only when hosts send: each state it held is then
      // seen and dated, so a late activation resolves against the release that ran (library-index.ts)
      await library.refresh().catch((e: unknown) => (lastError = (e as Error).message.slice(0, 300)));
      // a backlog (an observer that was down) is read in bounded chunks, each journaled (and
      // flushed once it fills a batch) before the next is read: memory stays bounded; a few per
      // tick, so a long backlog neither holds up the start nor the other timers
      let from = store.getOffset('outbox');
      for (let chunk = 0; chunk < OUTBOX_CHUNKS_PER_POLL; chunk++) {
        const { events, offset } = await readOutboxFrom(paths.outbox, from, OUTBOX_CHUNK_BYTES);
        if (offset === from) break;
        submitInventory(events, offset);
        from = offset;
      }
    } finally {
      outboxBusy = false;
    }
  };
  await pollOutbox();
  // what hooks and plugins spooled while no observer was listening ($SF_HOME/queue/spool)
  let spoolBusy = false;
  const drainSpool = async () => {
    if (spoolBusy) return;
    spoolBusy = true;
    try {
      // lines too old or not JSON are dropped by the replay: counted as rejected messages, as the spool promises
      counters.rejectedMessages += (await replaySpool(paths.spool, async (m) => void (await dispatch(m)))).dropped;
    } finally {
      spoolBusy = false;
    }
  };
  await drainSpool().catch((e: unknown) => (lastError = (e as Error).message));
  const timers = [
    setInterval(() => void pollOutbox().catch((e: unknown) => (lastError = (e as Error).message)), options.outboxPollMs ?? 1000),
    setInterval(() => {
      submit(() => normalizer.expire());
      sessions.prune();
      void drainSpool().catch((e: unknown) => (lastError = (e as Error).message));
      void writeStatus().catch(() => undefined);
    }, options.housekeepingMs ?? 5000),
    setInterval(() => pipeline.exportMetrics(), config.metrics.intervalMs),
    setInterval(() => void canaries().catch(() => undefined), options.canaryIntervalMs ?? 300_000),
  ];
  cleanups.push(async () => {
    for (const t of timers) clearInterval(t);
  });
  void canaries().catch(() => undefined);
  // `config`: what this observer loaded, for `sf observe doctor` to spot a config.json changed since
  await writeFileAtomic(paths.runtimeFile, JSON.stringify({ pid: process.pid, version: FORGE_VERSION, url: receiver.url, port: receiver.port, socket: paths.socket, startedAt, mode: status().mode, config: observeConfigDigest(config) }, null, 2) + '\n', { mode: 0o600 });
  cleanups.push(() => unlink(paths.runtimeFile).catch((e: unknown) => (hasErrno(e, 'ENOENT') ? undefined : Promise.reject(e))));
  await writeStatus();

  // a second close() (a signal handler and a test's cleanup, say) waits for the first
  let closing: Promise<void> | undefined;
  return {
    url: receiver.url, port: receiver.port, socketPath: paths.socket, paths, status,
    flush: () => {
      pipeline.flush();
      pipeline.exportMetrics();
    },
    canaries,
    close: () => (closing ??= (async () => {
      // stop intake first, then queue what is buffered, then stop delivery: nothing accepted is lost
      for (const t of timers) clearInterval(t);
      await receiver.close().catch(() => undefined);
      await socket.close().catch(() => undefined);
      await otlpChain;
      // activations waiting for their identity and turns waiting to go idle live only in memory:
      // settled now with what is known, as the settle window would have, rather than lost
      submit(() => normalizer.expire({ all: true }));
      pipeline.flush();
      pipeline.exportMetrics();
      await Promise.all(workers.map((w) => w.stop()));
      await writeStatus().catch(() => undefined);
      await cleanup();
    })()),
  };
}
