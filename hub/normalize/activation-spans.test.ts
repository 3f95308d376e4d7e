import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord, type OtlpSpan } from '../../core/telemetry/otlp/index.js';
import type { UsageReport } from '../query/usage.js';
import { logsRequest, skillRecord, testSpan, tracesRequest } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import { spanKind } from './event.js';
import { spanResult } from './normalize-batch.js';

/**
 * Activation spans (schemas/semconv/spans.yaml): only `activate_skill <name>` spans are
 * activation spans, and their agent.skill.result is mapped as the spec's enum says.
 */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

async function post(f: TelemetryFixture, u: TelemetryUser, items: { logs?: OtlpLogRecord[]; spans?: OtlpSpan[] }): Promise<void> {
  if (items.logs) assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(items.logs), 'protobuf'), { auth: u.device })).status, 200);
  if (items.spans) assert.equal((await f.post('traces', await encodeOtlpRequest(tracesRequest(items.spans), 'protobuf'), { auth: u.device })).status, 200);
  await f.telemetry.drain();
}

const usage = async (f: TelemetryFixture, u: TelemetryUser) => (await f.getJson<UsageReport>('/api/v1/telemetry/skits/o/k/usage?from=2026-08-01T00:00:00Z', u.pat)).totals;

describe('hub normalizer: activation spans', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  it('a tool span carrying the propagated activation id is an action under the activation, never its (failed) load', async () => {
    assert.equal(spanKind(testSpan('execute_tool Bash', { 'gen_ai.operation.name': 'execute_tool', 'agent.skill.activation.id': 'a' }, 0, 1)), 'span.agent.action');
    assert.equal(spanKind(testSpan('http GET', { 'agent.skill.activation.id': 'a' }, 0, 1)), 'span');
    assert.equal(spanKind(testSpan('activate_skill a', { 'agent.skill.activation.id': 'a' }, 0, 1)), 'span.agent.skill.activation');
    // a redacted skill name: the observer names the span `activate_skill` alone
    assert.equal(spanKind(testSpan('activate_skill', { 'agent.skill.activation.id': 'a' }, 0, 1)), 'span.agent.skill.activation');
    assert.equal(spanKind(testSpan('activate_skills_later', {}, 0, 1)), 'span');
    // the agent-turn check is not shadowed by a propagated activation id either
    assert.equal(spanKind(testSpan('agent_turn', { 'agent.turn.id': 't', 'agent.skill.activation.id': 'a' }, 0, 1)), 'span.agent.turn');

    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    await post(f, u, { logs: [
      skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_a', 'agent.skill.id': 'o/k:a', 'agent.skill.trigger.type': 'implicit' }, T0),
      skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'act_a', 'agent.skill.id': 'o/k:a' }, T0 + 5),
    ] });
    const tool = testSpan('execute_tool Bash', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'Bash', 'agent.skill.activation.id': 'act_a' }, T0 - 60_000, T0 + 60_000, { status: { code: 2 } });
    await post(f, u, { spans: [tool] });
    const r = f.telemetry.reader();
    const a = r.getActivation(u.id, 'act_a', u.deviceId)!;
    assert.deepEqual([a.load, a.selectedAt, a.loadDurationMs, a.loadFailedAt], ['complete', '2026-08-09T12:00:00.000000000Z', 5, undefined]);
    assert.equal((await usage(f, u)).loadFailed, 0);
    const [action] = [...r.allActions()];
    assert.deepEqual([action.toolName, action.activationIds, action.result], ['Bash', ['act_a'], 'error'], 'the failing tool span is an action linked to the activation');
  });

  it('maps agent.skill.result as the enum says: ok loaded, error failed, blocked/cancelled neither, unknown no load result', async () => {
    assert.deepEqual(
      [spanResult(undefined, 0), spanResult(undefined, 2), spanResult('blocked', 2), spanResult('cancelled', undefined), spanResult('unknown', 1), spanResult('sideways', 1), spanResult('ok', 2)],
      ['ok', 'error', 'blocked', 'cancelled', 'unknown', 'unknown', 'error'],
    );
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    const span = (id: string, result: string) => testSpan('activate_skill a', {
      'agent.skill.name': 'a', 'agent.skill.id': 'o/k:a', 'agent.skill.activation.id': id, 'agent.skill.evidence.source': 'native_otel', 'agent.skill.evidence.fidelity': 'exact', 'agent.skill.result': result,
    }, T0, T0 + 30);
    const ids = ['ok', 'error', 'blocked', 'cancelled', 'unknown'];
    await post(f, u, { spans: ids.map((result) => span(`act_${result}`, result)) });
    const r = f.telemetry.reader();
    assert.deepEqual(ids.map((id) => r.getActivation(u.id, `act_${id}`, u.deviceId)!.load), ['complete', 'failed', 'blocked', 'cancelled', 'unknown']);
    assert.deepEqual(r.getActivation(u.id, 'act_blocked', u.deviceId)!.loadEnded, { blocked: '2026-08-09T12:00:00.030000000Z' });
    const totals = await usage(f, u);
    assert.deepEqual([totals.activations, totals.loaded, totals.loadFailed], [5, 1, 1], 'blocked, cancelled and unknown count as neither loaded nor failed');
  });

  it('a load_failed event with result blocked or cancelled ends the load as the span does: the event, the span or both give one state and the same usage', async () => {
    // as the observer reports an OpenCode permission denial (or a Claude Code Skill rejection)
    const why = { 'agent.skill.id': 'o/k:a', 'agent.skill.name': 'a', 'agent.skill.result': 'blocked', 'error.type': 'permission_denied', 'agent.skill.error.stage': 'permission' };
    const selected = (act: string) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a', 'agent.skill.trigger.type': 'implicit' }, T0);
    const event = (act: string, result = 'blocked') => skillRecord('agent.skill.load_failed', { ...why, 'agent.skill.activation.id': act, 'agent.skill.phase': 'load_failed', 'agent.skill.result': result }, T0 + 30);
    const span = (act: string) => testSpan('activate_skill a', { ...why, 'agent.skill.activation.id': act, 'agent.skill.evidence.source': 'plugin', 'agent.skill.evidence.fidelity': 'exact' }, T0, T0 + 30, { status: { code: 2 } });
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    await post(f, u, {
      logs: [selected('act_event'), event('act_event'), selected('act_both'), event('act_both'), selected('act_cancelled'), event('act_cancelled', 'cancelled'), selected('act_error'), event('act_error', 'error')],
      spans: [span('act_span'), span('act_both')],
    });
    const r = f.telemetry.reader();
    const rows = ['act_event', 'act_span', 'act_both', 'act_cancelled', 'act_error'].map((id) => r.getActivation(u.id, id, u.deviceId)!);
    assert.deepEqual(rows.map((a) => [a.activationId, a.load, a.loadFailedAt === undefined, a.loadDurationMs]), [
      ['act_event', 'blocked', true, 30], ['act_span', 'blocked', true, 30], ['act_both', 'blocked', true, 30], ['act_cancelled', 'cancelled', true, 30], ['act_error', 'failed', false, 30],
    ]);
    assert.deepEqual(rows.slice(0, 3).map((a) => a.loadEnded), Array(3).fill({ blocked: '2026-08-09T12:00:00.030000000Z' }));
    assert.deepEqual(rows.map((a) => a.error), Array(5).fill({ type: 'permission_denied', stage: 'permission' }), 'why it did not load, from the event or the span alike');
    const totals = await usage(f, u);
    assert.deepEqual([totals.activations, totals.loaded, totals.loadFailed], [5, 0, 1], 'only the error is a failed load: blocked and cancelled are neither loaded nor failed (docs/hub-telemetry.md)');
  });
});
