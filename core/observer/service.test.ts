import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SfError } from '../errors/index.js';
import { Library } from '../library/db.js';
import { sfPaths } from '../library/paths.js';
import type { InventoryEvent } from '../library/types.js';
import { logsRequestToEnvelopes } from '../telemetry/envelope-otlp.js';
import type { OtlpLogsRequest, OtlpMetricsRequest } from '../telemetry/otlp/types.js';
import { decodeOtlpRequest } from '../telemetry/otlp/decode.js';
import { tempDir } from '../../test-support/index.js';
import { git, initRepo } from '../../test-support/git.js';
import { startOtlpSink, waitFor, type OtlpSink } from '../../test-support/otlp-sink.js';
import { GREETINGS, HELLO_HASH, captureRequest, greetingsInstall } from '../../test-support/telemetry.js';
import { encodeOtlpRequest } from '../telemetry/otlp/encode.js';
import { DEFAULT_OBSERVE_CONFIG, type ObserveConfig } from './config.js';
import { startObserver, type ObserverHandle, type ObserverOptions } from './service.js';
import { sendObserverMessage } from './socket-client.js';

const SESSION = 'cc0fce32-f629-46aa-bab4-1eeb5519e738';

interface World {
  home: string;
  project: string;
  file: string;
  generic: OtlpSink;
  hub: OtlpSink;
  observer: ObserverHandle;
  /** what started `observer`, to start another on the same $SF_HOME */
  options: ObserverOptions;
  cleanup: () => Promise<void>;
}

async function world(extra: Partial<ObserveConfig> = {}, options: Partial<ObserverOptions> = {}): Promise<World> {
  const tmp = await tempDir('sf-observer-');
  const home = join(tmp.path, 'sf-home');
  const project = await realpath(await mkdir(join(tmp.path, 'proj'), { recursive: true }).then(() => join(tmp.path, 'proj')));
  initRepo(project);
  git(project, ['remote', 'add', 'origin', 'https://github.com/acme/app.git']);
  const paths = sfPaths({ SF_HOME: home });
  const lib = (await Library.open(paths, { create: true }))!;
  lib.commit({ put: [greetingsInstall('project', project, [{ agent: 'claude-code', skillRoot: join(project, '.claude', 'skills') }])] });
  await lib.close();
  const generic = await startOtlpSink();
  const hub = await startOtlpSink();
  const file = join(tmp.path, 'out', 'telemetry.jsonl');
  const config: ObserveConfig = {
    ...DEFAULT_OBSERVE_CONFIG,
    batch: { maxRecords: 512, delayMs: 20 },
    destinations: [
      { name: 'local', type: 'file', path: file },
      { name: 'generic', type: 'otlp', endpoint: generic.origin, headers: { 'x-team': { env: 'TEAM_KEY' } } },
      { name: 'hub', type: 'hub', endpoint: hub.origin, credential: { env: 'HUB_DEVICE_TOKEN' }, protocol: 'json' },
    ],
    ...extra,
  };
  const observerOptions: ObserverOptions = {
    env: { SF_HOME: home, HOME: tmp.path, TEAM_KEY: 'team-secret', HUB_DEVICE_TOKEN: 'sfd_device_token' }, port: 0, config,
    retry: { baseBackoffMs: 30, maxBackoffMs: 100 }, outboxPollMs: 50, housekeepingMs: 100, ...options,
  };
  const observer = await startObserver(observerOptions);
  return {
    home, project, file, generic, hub, observer, options: observerOptions,
    cleanup: async () => {
      await observer.close();
      await generic.close();
      await hub.close();
      await tmp.cleanup();
    },
  };
}

const fileEnvelopes = async (file: string) => {
  const text = await readFile(file, 'utf8').catch(() => '');
  const out = [];
  for (const line of text.split('\n').filter(Boolean)) {
    const json = JSON.parse(line) as Record<string, unknown>;
    if (!('resourceLogs' in json)) continue;
    out.push(...logsRequestToEnvelopes((await decodeOtlpRequest('logs', Buffer.from(line), 'json')) as OtlpLogsRequest));
  }
  return out;
};
const sinkEnvelopes = (sink: OtlpSink) => sink.requests.filter((r) => r.signal === 'logs').flatMap((r) => logsRequestToEnvelopes(r.request as OtlpLogsRequest));

describe('observer service (real socket, HTTP, LMDB, destinations)', function () {
  this.timeout(60_000);
  let w: World;
  afterEach(async () => w?.cleanup());

  it('registers a session over the Unix socket, normalizes native OTLP and delivers the same events to a file, a generic OTLP receiver and the hub', async () => {
    w = await world();
    const reg = await sendObserverMessage(w.observer.socketPath, { type: 'register', id: 1, agent: 'claude-code', session_id: SESSION, pid: process.pid, cwd: join(w.project, '.') }, 5000);
    assert.deepEqual(reg, { ok: true, id: 1, repository_resolved: true });
    // the capture goes in as the host would send it: OTLP/JSON over HTTP
    const body = await readFile(new URL('../../fixtures/host-otlp/claude-tool-details/logs.json', import.meta.url));
    const res = await fetch(`${w.observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {});
    const fromFile = await waitFor(async () => ((await fileEnvelopes(w.file)).length >= 3 ? fileEnvelopes(w.file) : undefined), 15_000, 'file events');
    const fromGeneric = await waitFor(() => (sinkEnvelopes(w.generic).length >= 3 ? sinkEnvelopes(w.generic) : undefined), 15_000, 'generic events');
    const fromHub = await waitFor(() => (sinkEnvelopes(w.hub).length >= 3 ? sinkEnvelopes(w.hub) : undefined), 15_000, 'hub events');
    const names = (es: typeof fromFile) => es.map((e) => e.event_name);
    assert.deepEqual(names(fromFile), ['agent.skill.selected', 'agent.skill.load_started', 'agent.skill.loaded']);
    assert.deepEqual(fromGeneric, fromFile);
    assert.deepEqual(fromHub, fromFile);
    const loaded = fromFile[2];
    assert.equal(loaded.attributes['agent.skill.id'], `${GREETINGS}:hello-skill`);
    assert.equal(loaded.attributes['agent.skill.content.hash'], HELLO_HASH);
    assert.equal(loaded.attributes['session.id'], SESSION);
    assert.equal(loaded.attributes['forge.repository.resolution'], undefined, 'the registered session resolved its repository');
    assert.match(String(loaded.resource['forge.repository.fingerprint']), /^[0-9a-f]{64}$/);
    assert.match(String(loaded.resource['forge.worktree.fingerprint']), /^[0-9a-f]{64}$/);
    // credentials from env references, never in the queue or file
    assert.equal(w.generic.requests[0].headers['x-team'], 'team-secret');
    assert.equal(w.generic.requests[0].encoding, 'protobuf');
    assert.equal(w.hub.requests[0].headers.authorization, 'Bearer sfd_device_token');
    assert.equal(w.hub.requests[0].encoding, 'json');
    const text = await readFile(w.file, 'utf8');
    for (const leak of ['team-secret', 'sfd_device_token', w.project, 'HELLO']) assert.ok(!text.includes(leak), `file leaks ${leak}`);
    // activation spans go out as traces
    await waitFor(() => w.generic.requests.some((r) => r.signal === 'traces'), 15_000, 'activation span');
    // the client metrics: bounded dimensions only
    w.observer.flush();
    const metrics = await waitFor(() => w.generic.requests.find((r) => r.signal === 'metrics'), 15_000, 'client metrics');
    const series = (metrics.request as OtlpMetricsRequest).resources.flatMap((r) => r.scopes.flatMap((s) => s.items));
    assert.ok(series.some((m) => m.name === 'agent.skill.activation.count'));
    // the observer's own resource speaks OTel (amd64, windows), not Node (x64, win32 / Windows_NT)
    const resource = (metrics.request as OtlpMetricsRequest).resources[0].resource.attributes;
    assert.equal(resource['host.arch'], ({ x64: 'amd64', ia32: 'x86', arm: 'arm32' } as Record<string, string>)[process.arch] ?? process.arch);
    assert.equal(resource['os.type'], ({ win32: 'windows', sunos: 'solaris' } as Record<string, string>)[process.platform] ?? process.platform);
    for (const m of series) for (const p of 'dataPoints' in m.data ? m.data.dataPoints : []) for (const k of Object.keys(p.attributes)) assert.ok(!/skill\.id|session|activation\.id|repository|artifact/.test(k), `${m.name} has ${k}`);
    const status = w.observer.status();
    assert.equal(status.sessions, 1);
    assert.ok(status.destinations.every((d) => d.delivered >= 4), JSON.stringify(status.destinations));
  });

  it('accepts protobuf from the real OTel SDK exporter; an unregistered session is repo_unresolved', async () => {
    w = await world();
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'claude-code', 'service.version': '2.1.328' }),
      processors: [new SimpleLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${w.observer.url}/v1/logs` }) })],
    });
    const logger = provider.getLogger('com.anthropic.claude_code.events', '2.1.328');
    const common = { 'session.id': 'unregistered-session', 'prompt.id': 'p1' };
    logger.emit({ severityNumber: SeverityNumber.INFO, body: 'claude_code.tool_decision', attributes: { ...common, 'event.name': 'tool_decision', 'event.sequence': 1, tool_name: 'Skill', tool_use_id: 'tu1', decision: 'accept', source: 'config', tool_parameters: '{"skill_name":"hello-skill"}' } });
    logger.emit({ severityNumber: SeverityNumber.INFO, body: 'claude_code.skill_activated', attributes: { ...common, 'event.name': 'skill_activated', 'event.sequence': 2, 'skill.name': 'hello-skill', invocation_trigger: 'claude-proactive', 'skill.source': 'projectSettings' } });
    logger.emit({ severityNumber: SeverityNumber.INFO, body: 'claude_code.tool_result', attributes: { ...common, 'event.name': 'tool_result', 'event.sequence': 3, tool_name: 'Skill', tool_use_id: 'tu1', success: 'true', duration_ms: '5', tool_input: '{"skill":"hello-skill"}' } });
    await provider.forceFlush();
    await provider.shutdown();
    const events = await waitFor(async () => ((await fileEnvelopes(w.file)).length >= 3 ? fileEnvelopes(w.file) : undefined), 15_000, 'file events');
    for (const e of events) {
      assert.equal(e.attributes['forge.repository.resolution'], 'repo_unresolved');
      assert.equal(e.resource['forge.repository.fingerprint'], undefined);
    }
    // no registered cwd: a project skill cannot be pinned to one installation, so it is labelled
    assert.equal(events[0].attributes['agent.skill.id'], 'ambiguous:hello-skill');
  });

  it('on close, emits what it still holds in memory: the turn span Forge makes for a host without traces (it waits for the turn to go idle)', async () => {
    w = await world();
    const common = { 'session.id': 'turn-session', 'prompt.id': 'p1' };
    const records = [
      { 'event.name': 'tool_decision', 'event.sequence': 1, tool_name: 'Skill', tool_use_id: 'tu1', decision: 'accept', source: 'config', tool_parameters: '{"skill_name":"hello-skill"}' },
      { 'event.name': 'skill_activated', 'event.sequence': 2, 'skill.name': 'hello-skill', invocation_trigger: 'claude-proactive', 'skill.source': 'projectSettings' },
      { 'event.name': 'tool_result', 'event.sequence': 3, tool_name: 'Skill', tool_use_id: 'tu1', success: 'true', duration_ms: '5', tool_input: '{"skill":"hello-skill"}' },
    ];
    const body = await encodeOtlpRequest({
      signal: 'logs',
      resources: [{ resource: { attributes: { 'service.name': 'claude-code', 'service.version': '2.1.328' } }, scopes: [{ scope: { name: 'com.anthropic.claude_code.events' }, items: records.map((a, i) => ({ timeUnixNano: `${1796000000000000000n + BigInt(i) * 1000000n}`, observedTimeUnixNano: `${1796000000000000000n + BigInt(i) * 1000000n}`, body: `claude_code.${a['event.name']}`, attributes: { ...common, ...a } })) }] }],
    } as unknown as OtlpLogsRequest, 'protobuf');
    const res = await fetch(`${w.observer.url}/v1/logs`, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/x-protobuf' } });
    assert.equal(res.status, 200);
    await waitFor(async () => (await fileEnvelopes(w.file)).length >= 3, 15_000, 'file events');
    const spanNames = async () => (await readFile(w.file, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { resourceSpans?: { scopeSpans: { spans: { name: string }[] }[] }[] })
      .flatMap((j) => (j.resourceSpans ?? []).flatMap((r) => r.scopeSpans.flatMap((sc) => sc.spans.map((sp) => sp.name))));
    await waitFor(async () => (await spanNames()).includes('activate_skill hello-skill') || (await spanNames()).some((n) => n.startsWith('activate_skill')), 15_000, 'activation span');
    assert.ok(!(await spanNames()).includes('agent_turn'), 'the turn is not idle yet (settle window 120 s)');
    const spansBefore = w.observer.status().normalized.spans;
    await w.observer.close();
    const closed = JSON.parse(await readFile(w.observer.paths.statusFile, 'utf8')) as { normalized: { spans: number } };
    assert.equal(closed.normalized.spans, spansBefore + 1, 'the turn span was made on close (the status written at close)');
    // it was queued (stopping never waits for a destination), and the next observer delivers it
    // (world's cleanup closes the first observer only)
    const restarted = await startObserver(w.options);
    try {
      await waitFor(async () => (await spanNames()).includes('agent_turn'), 15_000, 'the turn span, delivered after the restart');
      assert.deepEqual((await spanNames()).filter((n) => n === 'agent_turn'), ['agent_turn']);
    } finally {
      await restarted.close();
    }
  });

  it('registers an unknown Claude Code session from its transcript, also when the transcript appears only after the first batch', async () => {
    w = await world();
    const capture = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
    const post = async (req: OtlpLogsRequest) => fetch(`${w.observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.from(await encodeOtlpRequest(req, 'protobuf')) });
    // Claude's start-up records come first, before it has written the transcript
    const startup = { ...capture, resources: capture.resources.map((r) => ({ ...r, scopes: r.scopes.map((sc) => ({ ...sc, items: sc.items.slice(0, 1) })) })) };
    assert.equal((await post(startup)).status, 200);
    await waitFor(() => w.observer.status().received.logs === 1, 15_000, 'the first batch');
    assert.equal(w.observer.status().sessions, 0, 'no transcript yet');
    // what Claude writes: $HOME/.claude/projects/<sanitized cwd>/<session id>.jsonl, the cwd on the first message line
    const dir = join(dirname(w.home), '.claude', 'projects', w.project.replace(/[^A-Za-z0-9]/g, '-'));
    await mkdir(dir, { recursive: true });
    const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: SESSION, ...o }) + '\n';
    await writeFile(join(dir, `${SESSION}.jsonl`), line({ type: 'queue-operation', operation: 'enqueue' }) + line({ type: 'user', cwd: w.project, message: { role: 'user', content: 'hi' } }));
    assert.equal((await post(capture)).status, 200);
    const events = await waitFor(async () => ((await fileEnvelopes(w.file)).length >= 3 ? fileEnvelopes(w.file) : undefined), 15_000, 'file events');
    assert.deepEqual(events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.load_started', 'agent.skill.loaded']);
    for (const e of events) {
      assert.equal(e.attributes['agent.skill.id'], `${GREETINGS}:hello-skill`, 'the project installation, not ambiguous');
      assert.equal(e.attributes['forge.repository.resolution'], undefined);
      assert.match(String(e.resource['forge.repository.fingerprint']), /^[0-9a-f]{64}$/);
    }
    assert.equal(w.observer.status().sessions, 1);
    assert.equal(w.observer.status().errors, 0);
  });

  it('registers a running Claude Code session from its sessions/<pid>.json record, before any transcript exists', async () => {
    w = await world();
    const capture = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
    // what a running Claude keeps: $HOME/.claude/sessions/<its pid>.json (this test's pid: a live process)
    const sessionsDir = join(dirname(w.home), '.claude', 'sessions');
    await mkdir(sessionsDir, { recursive: true });
    await writeFile(join(sessionsDir, `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: SESSION, cwd: w.project, version: '2.1.328', kind: 'interactive' }));
    const res = await fetch(`${w.observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.from(await encodeOtlpRequest(capture, 'protobuf')) });
    assert.equal(res.status, 200);
    const events = await waitFor(async () => ((await fileEnvelopes(w.file)).length >= 3 ? fileEnvelopes(w.file) : undefined), 15_000, 'file events');
    for (const e of events) {
      assert.equal(e.attributes['agent.skill.id'], `${GREETINGS}:hello-skill`, 'the project installation, not ambiguous');
      assert.match(String(e.resource['forge.repository.fingerprint']), /^[0-9a-f]{64}$/);
    }
    assert.equal(w.observer.status().sessions, 1);
  });

  it('keeps delivering when a destination dies: retries with counters, then delivers everything once it is back', async () => {
    w = await world();
    const port = w.generic.port;
    await w.generic.close();
    const capture = await captureRequest('claude-tool-details', 'logs');
    await sendObserverMessage(w.observer.socketPath, { type: 'register', agent: 'claude-code', session_id: SESSION, cwd: w.project }, 5000);
    const t0 = Date.now();
    const res = await fetch(`${w.observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.from(await encodeOtlpRequest(capture, 'protobuf')) });
    assert.equal(res.status, 200, 'the host is answered although a destination is down');
    assert.ok(Date.now() - t0 < 5000);
    await waitFor(() => w.observer.status().destinations.find((d) => d.name === 'generic')!.retried > 0, 15_000, 'retries');
    // the live destinations are not held back by the dead one
    await waitFor(async () => (await fileEnvelopes(w.file)).length >= 3, 15_000, 'file delivery');
    const st = w.observer.status().destinations.find((d) => d.name === 'generic')!;
    assert.equal(st.delivered, 0);
    assert.ok(st.queued.items > 0);
    assert.match(st.lastError ?? '', /ECONNREFUSED/);
    const revived = await startOtlpSink(port);
    try {
      await waitFor(() => sinkEnvelopes(revived).length >= 3, 15_000, 'delivery after revival');
      const after = await waitFor(() => {
        const d = w.observer.status().destinations.find((x) => x.name === 'generic')!;
        return d.queued.items === 0 ? d : undefined;
      }, 15_000, 'queue drained');
      assert.ok(after.delivered >= 4);
      assert.equal(after.dropped, 0);
      assert.deepEqual(sinkEnvelopes(revived).map((e) => e.attributes['agent.skill.event.id']), (await fileEnvelopes(w.file)).map((e) => e.attributes['agent.skill.event.id']));
    } finally {
      await revived.close();
    }
  });

  it('drops what a destination rejects (4xx) and counts it; canaries report each destination', async () => {
    w = await world();
    w.hub.failWith = 400;
    await w.observer.canaries();
    const canaries = Object.fromEntries(w.observer.status().destinations.map((d) => [d.name, d.canary?.ok]));
    assert.deepEqual(canaries, { local: true, generic: true, hub: false });
    await fetch(`${w.observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await readFile(new URL('../../fixtures/host-otlp/claude-tool-details/logs.json', import.meta.url)) });
    const hub = await waitFor(() => {
      const d = w.observer.status().destinations.find((x) => x.name === 'hub')!;
      return d.dropped >= 3 ? d : undefined;
    }, 15_000, 'hub drops');
    assert.ok((hub.droppedBy.rejected ?? 0) >= 3);
    assert.equal(hub.delivered, 0);
  });

  it('exports install-layer outbox records as inventory and intervention events', async () => {
    w = await world();
    const rec: InventoryEvent = {
      schema: 'forge/inventory-event/1', event_id: 'ev-1', event_name: 'agent.skill.inventory.changed', timestamp: new Date().toISOString(),
      skit_id: GREETINGS, release: { version: '1.2.0' }, bundle_hash: 'sha256:' + '9'.repeat(64), action: 'disabled', agent: 'claude-code', scope: 'project',
      actor_type: 'user', installer_version: '0.1.0', skills: [{ id: `${GREETINGS}:hello-skill`, content_hash: HELLO_HASH, enabled: false }],
      intervention: { type: 'disable_skill', reason_code: 'unknown', skill_ids: [`${GREETINGS}:hello-skill`] },
    };
    await mkdir(join(w.home, 'queue'), { recursive: true });
    await appendFile(join(w.home, 'queue', 'outbox.jsonl'), JSON.stringify(rec) + '\n{"torn":');
    const events = await waitFor(async () => ((await fileEnvelopes(w.file)).length >= 2 ? fileEnvelopes(w.file) : undefined), 15_000, 'inventory events');
    assert.deepEqual(events.map((e) => e.event_name), ['agent.skill.inventory.changed', 'agent.user.intervention']);
    assert.equal(events[0].attributes['agent.skill.inventory.action'], 'disabled');
    assert.equal(w.observer.status().received.outbox, 1);
  });

  it('answers 429 with Retry-After while normalization is backed up, and accepts again once it caught up', async () => {
    w = await world({}, { maxPendingExports: 1 });
    const body = await readFile(new URL('../../fixtures/host-otlp/claude-tool-details/logs.json', import.meta.url));
    const post = async () => {
      const res = await fetch(`${w.observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.arrayBuffer();
      return { status: res.status, retryAfter: res.headers.get('retry-after') };
    };
    const answers = await Promise.all(Array.from({ length: 12 }, post));
    const refused = answers.filter((a) => a.status === 429);
    assert.ok(answers.some((a) => a.status === 200), JSON.stringify(answers));
    assert.ok(refused.length > 0, JSON.stringify(answers));
    for (const r of refused) assert.ok(Number(r.retryAfter) >= 1, JSON.stringify(r));
    assert.equal((await post()).status, 200, 'a single export is accepted once the backlog is gone');
  });

  it('is one per user: a second observer on the same $SF_HOME refuses to start', async () => {
    w = await world();
    await assert.rejects(startObserver({ env: { SF_HOME: w.home }, port: 0, config: DEFAULT_OBSERVE_CONFIG }), (e) => e instanceof SfError && e.code === 'SF_E_CONFLICT' && /pid/.test(e.message));
    assert.deepEqual(await sendObserverMessage(w.observer.socketPath, { type: 'ping', id: 'p' }, 5000), { ok: true, id: 'p', version: '0.1.0', pid: process.pid });
    const bad = await sendObserverMessage(w.observer.socketPath, { type: 'register', agent: 'claude-code' } as never, 5000);
    assert.equal(bad?.ok, false);
    // fail open: no observer behind the path is an undefined answer, never an exception
    assert.equal(await sendObserverMessage(join(w.home, 'run', 'nobody.sock'), { type: 'ping' }), undefined);
  });
});
