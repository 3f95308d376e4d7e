import assert from 'node:assert/strict';
import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { EVENTS, SPANS, type EventName } from '../../../schemas/generated/semconv.js';
import { BUNDLE_HASH, CAPTURE_PROJECT, GREETINGS, HELLO_HASH, captureLibrary, captureRequest, fakeContext } from '../../../test-support/telemetry.js';
import { eventAttributeKeys, metadataAttributeKeys } from '../event.js';
import { actionTypeOf } from './actions.js';
import { decodeOtlpRequest } from '../otlp/decode.js';
import type { OtlpLogRecord, OtlpLogsRequest, OtlpSpan, OtlpTracesRequest } from '../otlp/types.js';
import { NormalizerEngine } from './engine.js';
import { createNormalizer, type NormalizedOutput, type SessionInfo } from './index.js';

/**
 * Conformance of the normalizer's output with the semantic convention (spec section 8): the
 * envelope every event may carry, activation spans of redacted skills, tool-span action types,
 * inferred deduplication of pass-through events and host-only event sequences.
 */

const SESSION = 'cc0fce32-f629-46aa-bab4-1eeb5519e738';
const resolved = (cwd: string): SessionInfo => ({ cwd, repositoryResolved: true, fingerprints: {} });
const attr = (e: { attributes: unknown }, k: string) => (e.attributes as Record<string, unknown>)[k];

/** The spec's "Every normalized event includes, when available" groups that are event attributes. */
const SPEC_ENVELOPE = [
  // Schema
  'agent.skill.schema.version', 'agent.skill.event.id', 'agent.skill.event.sequence',
  // Host
  'agent.host.name', 'agent.host.version', 'agent.adapter.name', 'agent.adapter.version',
  // Agent run
  'session.id', 'gen_ai.conversation.id', 'agent.turn.id', 'gen_ai.agent.id', 'gen_ai.agent.name', 'gen_ai.request.model',
  'agent.runtime.autonomy.mode', 'agent.runtime.approval.mode', 'agent.runtime.sandbox.mode', 'agent.runtime.network.mode',
  // Skill package
  'agent.skill.package.id', 'artifact.version', 'artifact.hash', 'artifact.purl',
  // Contained skill
  'agent.skill.id', 'agent.skill.name', 'agent.skill.content.hash', 'agent.skill.source.type', 'agent.skill.source.ref',
  // Activation
  'agent.skill.activation.id', 'agent.skill.trigger.type', 'agent.skill.trigger.source', 'agent.skill.phase', 'agent.skill.result',
  // Git AI correlation
  'git.ai.session.id', 'git.ai.checkpoint.id', 'git.ai.attestation.key', 'git.ai.version', 'git.ai.schema.version',
  // Evidence
  'agent.skill.evidence.source', 'agent.skill.evidence.fidelity', 'agent.skill.evidence.observer',
  // Repository
  'forge.repository.id',
  // Failure
  'error.type', 'agent.skill.error.stage', 'agent.skill.reason.code',
];

/** The claude-default capture without the api_request records that name the redacted skill. */
async function redactedClaude(): Promise<OtlpLogsRequest> {
  const logs = (await captureRequest('claude-default', 'logs')) as OtlpLogsRequest;
  for (const r of logs.resources) for (const s of r.scopes) s.items = s.items.filter((rec) => !String(rec.attributes['event.name'] ?? rec.eventName ?? rec.body).includes('api_request'));
  return logs;
}
function sessions(req: OtlpLogsRequest): Record<string, SessionInfo> {
  const out: Record<string, SessionInfo> = {};
  for (const r of req.resources) for (const s of r.scopes) for (const rec of s.items) if (typeof rec.attributes['session.id'] === 'string') out[rec.attributes['session.id'] as string] = resolved(`/${CAPTURE_PROJECT}`);
  return out;
}
function merge(into: NormalizedOutput, from: NormalizedOutput): NormalizedOutput {
  into.events.push(...from.events);
  into.spans.push(...from.spans);
  into.metrics.push(...from.metrics);
  return into;
}

const hookLogs = (records: OtlpLogRecord[]): OtlpLogsRequest => ({
  signal: 'logs', resources: [{ resource: { attributes: { 'service.name': 'my-forge-hook' } }, scopes: [{ scope: { name: 'my-hook' }, items: records }] }],
});
const hookRecord = (eventName: string, attributes: Record<string, unknown>, time = '1796000000000000000'): OtlpLogRecord =>
  ({ eventName, timeUnixNano: time, observedTimeUnixNano: time, attributes: { 'agent.skill.evidence.source': 'native_hook', 'agent.skill.evidence.fidelity': 'exact', ...attributes } } as OtlpLogRecord);

describe('normalizer conformance with the semantic convention', () => {
  describe('a redacted skill name (Claude Code default, nothing names the skill)', () => {
    it('still gets its activation span, named activate_skill, and its activation metrics', async () => {
      const logs = await redactedClaude();
      const ctx = fakeContext(captureLibrary(), sessions(logs));
      const n = createNormalizer(ctx);
      const out = n.logs(logs);
      ctx.clock.t += 600_000_000_000n;
      merge(out, n.expire());
      assert.deepEqual(out.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.load_started', 'agent.skill.loaded']);
      for (const e of out.events) {
        assert.equal(attr(e, 'agent.skill.library.resolution'), 'name_redacted');
        assert.equal(attr(e, 'agent.skill.name'), undefined, 'the placeholder is never reported as the name');
      }
      const [turn, ...activations] = [out.spans.filter((s) => s.span.name === 'agent_turn'), out.spans.filter((s) => s.span.name !== 'agent_turn')].flat().map((s) => s.span);
      assert.equal(activations.length, 1, 'one activation span');
      assert.equal(turn.name, 'agent_turn', 'under the turn span Forge makes for a host without traces');
      const span = activations[0];
      assert.equal(span.parentSpanId, turn.spanId);
      assert.equal(span.name, 'activate_skill');
      assert.equal(span.attributes['agent.skill.activation.id'], attr(out.events[0], 'agent.skill.activation.id'));
      assert.equal(span.attributes['agent.skill.name'], undefined);
      assert.deepEqual(out.metrics.map((m) => m.name).sort(), ['agent.skill.activation.count', 'agent.skill.activation.duration']);
    });

    it('the span definition makes agent.skill.name conditionally required, not required', () => {
      const def = SPANS['span.agent.skill.activation'];
      assert.ok(!(def.required as readonly string[]).includes('agent.skill.name'));
      assert.ok(def.conditionallyRequired.some((c) => c.id === 'agent.skill.name'));
    });
  });

  describe('one bad activation', () => {
    it('never stops the expire() sweep: the other activations still settle and emit', () => {
      const ctx = fakeContext(captureLibrary(), { s1: resolved(`/${CAPTURE_PROJECT}`) });
      const engine = new NormalizerEngine(ctx);
      const resource = engine.resourceFor('claude-code', { 'service.name': 'claude-code' }, 's1');
      const start = (key: string) => engine.start({ key, host: 'claude-code', sessionId: 's1', turnId: key, hostScope: 'project', trigger: 'implicit', selector: 'model', evidence: 'native_otel', at: ctx.now(), resource });
      const bad = start('bad');
      const good = start('good');
      // an activation whose trace context is corrupt: its event and its span break the convention
      bad.traceId = 'not-a-trace-id';
      for (const act of [bad, good]) {
        engine.emit(act, 'agent.skill.selected', { 'agent.skill.phase': 'selected' }, ctx.now(), [act.key]);
        engine.finish(act, ctx.now(), { result: 'ok' }, [act.key]);
      }
      assert.equal(engine.take().events.length, 0, 'both wait for a name');
      ctx.clock.t += 600_000_000_000n;
      assert.doesNotThrow(() => engine.expire());
      const out = engine.take();
      assert.ok(good.identity && bad.identity, 'both settled');
      assert.deepEqual(out.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.loaded']);
      assert.ok(out.events.every((e) => attr(e, 'agent.skill.activation.id') === good.id));
      assert.deepEqual(out.spans.filter((s) => s.span.name !== 'agent_turn').map((s) => s.span.attributes['agent.skill.activation.id']), [good.id]);
      assert.equal(out.metrics.filter((m) => m.name === 'agent.skill.activation.count').length, 2, 'the bad activation still counts');
      assert.ok(engine.rejected >= 3, 'the bad activation\'s events and span are counted as rejected');
    });
  });

  describe('the required event envelope', () => {
    it('every catalog event allows every attribute of the spec envelope', () => {
      for (const name of Object.keys(EVENTS) as EventName[]) {
        const keys = eventAttributeKeys(name);
        const missing = SPEC_ENVELOPE.filter((k) => !keys.has(k));
        assert.deepEqual(missing, [], `${name} does not allow ${missing.join(', ')}`);
      }
    });

    it('the envelope identity is metadata (allowed without the content opt-in)', () => {
      const meta = metadataAttributeKeys('agent.skill.load_started');
      for (const k of ['agent.skill.package.id', 'agent.skill.content.hash', 'agent.skill.name', 'agent.skill.source.ref', 'artifact.purl']) assert.ok(meta.has(k), k);
    });

    it('activation events carry the identity the normalizer knows: package and hash on load_started, name and source on loaded', async () => {
      const logs = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
      const out = createNormalizer(fakeContext(captureLibrary(), { [SESSION]: resolved(`/${CAPTURE_PROJECT}`) })).logs(logs);
      assert.deepEqual(out.events.map((e) => e.event_name), ['agent.skill.selected', 'agent.skill.load_started', 'agent.skill.loaded']);
      for (const e of out.events) {
        assert.equal(attr(e, 'agent.skill.package.id'), GREETINGS, e.event_name);
        assert.equal(attr(e, 'agent.skill.content.hash'), HELLO_HASH, e.event_name);
        assert.equal(attr(e, 'agent.skill.name'), 'hello-skill', e.event_name);
        assert.equal(attr(e, 'agent.skill.source.type'), 'forge', e.event_name);
        assert.equal(attr(e, 'agent.skill.source.ref'), '1.2.0', e.event_name);
        assert.equal(attr(e, 'artifact.version'), '1.2.0', e.event_name);
        assert.equal(attr(e, 'artifact.hash'), BUNDLE_HASH, e.event_name);
      }
    });

    it('a pass-through event keeps the envelope attributes its source set', () => {
      const out = createNormalizer(fakeContext(captureLibrary())).logs(hookLogs([hookRecord('agent.skill.selected', {
        'agent.skill.event.id': 'e2', 'agent.skill.id': 'o/k:s', 'agent.skill.activation.id': 'act_2', 'agent.skill.trigger.type': 'implicit',
        'artifact.hash': `sha256:${'9'.repeat(64)}`, 'agent.skill.source.ref': '1.2.0', 'artifact.purl': 'pkg:generic/x@1', 'agent.skill.result': 'ok',
      })]));
      assert.equal(out.events.length, 1);
      for (const [k, v] of [['artifact.hash', `sha256:${'9'.repeat(64)}`], ['agent.skill.source.ref', '1.2.0'], ['artifact.purl', 'pkg:generic/x@1'], ['agent.skill.result', 'ok']]) {
        assert.equal(attr(out.events[0], k), v, k);
      }
    });
  });

  describe('enriched tool spans', () => {
    async function toolSpans(tools: string[]): Promise<OtlpSpan[]> {
      const n = createNormalizer(fakeContext(captureLibrary(), { [SESSION]: resolved('/$WORK/proj') }));
      n.logs((await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest);
      const exporter = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'claude-code' }), spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('claude');
      const turn = tracer.startSpan('invoke_agent claude');
      for (const tool of tools) tracer.startSpan(`execute_tool ${tool}`, { kind: 1, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'session.id': SESSION } }, trace.setSpan(context.active(), turn)).end();
      turn.end();
      const req = (await decodeOtlpRequest('traces', ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!, 'protobuf')) as OtlpTracesRequest;
      return n.traces(req).spans.map((s) => s.span);
    }

    it('carry every attribute span.agent.action requires, agent.action.type mapped like agent.action.completed', async () => {
      const spans = await toolSpans(['Bash', 'Edit', 'mcp__acme__deploy', 'constructor']);
      assert.deepEqual(spans.map((s) => s.attributes['agent.action.type']), ['process.execute', 'filesystem.write', 'other', 'other']);
      for (const s of spans) for (const k of SPANS['span.agent.action'].required) assert.ok(s.attributes[k] !== undefined, `${s.name} lacks ${k}`);
    });
  });

  describe('deduplication of pass-through events without an event id', () => {
    const noId = (extra: Record<string, unknown> = {}) => hookRecord('agent.skill.load_failed', { 'agent.skill.id': 'o/k:s', 'agent.skill.activation.id': 'act_1', 'error.type': 'missing_file', ...extra });

    it('get a deterministic batch-local fingerprint and are marked forge.dedup.basis = batch_fingerprint', () => {
      const batch = () => hookLogs([noId(), noId(), noId({ 'agent.skill.activation.id': 'act_2' })]);
      const n = createNormalizer(fakeContext(captureLibrary()));
      const out = n.logs(batch());
      assert.equal(out.events.length, 3, 'two identical records in one batch stay two');
      const ids = out.events.map((e) => attr(e, 'agent.skill.event.id') as string);
      assert.equal(new Set(ids).size, 3);
      for (const id of ids) assert.match(id, /^fp_[0-9a-f]{32}$/);
      for (const e of out.events) assert.equal(attr(e, 'forge.dedup.basis'), 'batch_fingerprint');
      // a fresh normalizer derives the same ids (stable across observer restarts and retries)
      assert.deepEqual(createNormalizer(fakeContext(captureLibrary())).logs(batch()).events.map((e) => attr(e, 'agent.skill.event.id')), ids);
      // the same batch delivered again dedupes
      assert.equal(n.logs(batch()).events.length, 0);
    });

    it('an event with its own id is not marked inferred, and a source cannot claim a dedup basis', () => {
      const out = createNormalizer(fakeContext(captureLibrary())).logs(hookLogs([noId({ 'agent.skill.event.id': 'evt_x', 'forge.dedup.basis': 'batch_fingerprint' })]));
      assert.equal(out.events.length, 1);
      assert.equal(attr(out.events[0], 'agent.skill.event.id'), 'evt_x');
      assert.equal(attr(out.events[0], 'forge.dedup.basis'), undefined);
    });
  });

  describe('agent.skill.event.sequence', () => {
    it('is not invented from the observer\'s arrival order when the host provides no ordering', async () => {
      const logs = (await captureRequest('claude-tool-details', 'logs')) as OtlpLogsRequest;
      const out = createNormalizer(fakeContext(captureLibrary(), { [SESSION]: resolved(`/${CAPTURE_PROJECT}`) })).logs(logs);
      assert.ok(out.events.length > 0);
      for (const e of out.events) assert.equal(attr(e, 'agent.skill.event.sequence'), undefined, e.event_name);
    });

    it('keeps the ordering a pass-through source provides', () => {
      const out = createNormalizer(fakeContext(captureLibrary())).logs(hookLogs([
        hookRecord('agent.skill.selected', { 'agent.skill.event.id': 'e1', 'agent.skill.id': 'o/k:s', 'agent.skill.activation.id': 'a', 'agent.skill.trigger.type': 'explicit', 'agent.skill.event.sequence': 4 }),
        hookRecord('agent.skill.selected', { 'agent.skill.event.id': 'e2', 'agent.skill.id': 'o/k:s', 'agent.skill.activation.id': 'b', 'agent.skill.trigger.type': 'explicit' }),
      ]));
      assert.deepEqual(out.events.map((e) => attr(e, 'agent.skill.event.sequence')), [4, undefined]);
    });
  });

  it('maps tool names to action types by own properties only (a tool named "constructor" is other)', () => {
    assert.equal(actionTypeOf('constructor'), 'other');
    assert.equal(actionTypeOf('toString'), 'other');
    assert.equal(actionTypeOf('Bash'), 'process.execute');
  });
});
