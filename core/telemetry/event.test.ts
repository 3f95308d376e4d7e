import assert from 'node:assert/strict';
import { observationEnvelopeSchema } from '../../schemas/generated/observation-envelope.js';
import { SfError } from '../errors/index.js';
import { checkSchema } from '../skit/schemas.js';
import { buildEvent, type EventInput } from './event.js';
import { deriveTraceId, hostTraceId, isGitAiId, eventIdFor } from './ids.js';
import { isoToNanos, nanosToIso } from './time.js';

const base = (over: Partial<EventInput> = {}): EventInput => ({
  name: 'agent.skill.selected',
  attributes: {
    'agent.skill.event.id': 'evt_1',
    'agent.skill.evidence.source': 'native_otel',
    'agent.skill.evidence.fidelity': 'exact',
    'agent.skill.activation.id': 'act_1',
    'agent.skill.id': 'acme/x:y',
    'agent.skill.trigger.type': 'implicit',
  },
  resource: { 'service.name': 'claude-code', 'agent.host.name': 'claude_code' },
  observedTimestamp: '1796008761585000000',
  ...over,
});

const code = (e: unknown) => e instanceof SfError && e.code === 'SF_E_TELEMETRY_EVENT';

describe('core/telemetry event builder', () => {
  it('builds a LogRecord envelope with EventName, schema version and URL, and fits the JSON Schema', () => {
    const env = buildEvent(base({ timestamp: '1796008761562000000', traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8) }));
    assert.equal(env.event_name, 'agent.skill.selected');
    assert.equal(env.attributes['agent.skill.schema.version'], '1.0.0');
    assert.equal(env.schema_url, 'https://forge.dev/schemas/agent-skill/1.0.0');
    assert.equal(env.timestamp, '2026-11-30T03:19:21.562Z');
    assert.equal(env.trace_id, 'ab'.repeat(16));
    assert.deepEqual(checkSchema(observationEnvelopeSchema, env), []);
  });

  it('refuses a missing required attribute, an attribute foreign to the event, a bad enum value and a wrong type', () => {
    const { 'agent.skill.trigger.type': _t, ...noTrigger } = base().attributes;
    assert.throws(() => buildEvent(base({ attributes: noTrigger })), (e) => code(e) && /required agent.skill.trigger.type/.test((e as Error).message));
    assert.throws(() => buildEvent(base({ attributes: { ...base().attributes, 'agent.action.type': 'git.push' } })), (e) => code(e) && /not an attribute of agent.skill.selected/.test((e as Error).message));
    assert.throws(() => buildEvent(base({ attributes: { ...base().attributes, 'agent.skill.trigger.type': 'whatever' as 'explicit' } })), code);
    assert.throws(() => buildEvent(base({ attributes: { ...base().attributes, 'agent.skill.event.sequence': 1.5 } })), code);
    assert.throws(() => buildEvent(base({ resource: { 'service.name': 'x', 'user.email': 'a@b' } })), (e) => code(e) && /not a resource attribute/.test((e as Error).message));
  });

  it('never puts a Git AI t_ id into a trace id', () => {
    assert.ok(isGitAiId('t_9f8e7d6c5b4a32'));
    assert.ok(isGitAiId('s_c9883b05a2487d::t_9f8e7d6c5b4a32'));
    assert.ok(!isGitAiId('4fd0a1b2c3d4e5f60718293a4b5c6d7e'));
    assert.throws(() => deriveTraceId(['claude-code', 'sess', 't_9f8e7d6c5b4a32']), code);
    assert.equal(hostTraceId('t_9f8e7d6c5b4a32'), undefined);
    assert.equal(hostTraceId('t_9f8e7d6c5b4a32'.padEnd(32, '0')), undefined);
    assert.throws(() => buildEvent(base({ traceId: 't_9f8e7d6c5b4a32' })), code);
    const env = buildEvent(base({ attributes: { ...base().attributes } }));
    assert.equal(env.trace_id, undefined);
  });

  it('derives stable ids: same native identity, same id', () => {
    assert.equal(eventIdFor(['a', 1, 'b']), eventIdFor(['a', 1, 'b']));
    assert.notEqual(eventIdFor(['a', 1, 'b']), eventIdFor(['a', 2, 'b']));
    assert.match(eventIdFor(['x']), /^evt_[0-9a-f]{32}$/);
    assert.equal(deriveTraceId(['s', 't']), deriveTraceId(['s', 't']));
  });

  it('keeps nanosecond precision through RFC 3339', () => {
    for (const n of ['1796008922460969226', '1796008761173000000', '1796008761000000000']) assert.equal(isoToNanos(nanosToIso(n)), n);
    assert.equal(nanosToIso('1796008922460969226'), '2026-11-30T03:22:02.460969226Z');
  });
});
