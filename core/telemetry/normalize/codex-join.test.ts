import assert from 'node:assert/strict';
import { CAPTURE_PROJECT, captureLibrary, captureRequest, fakeContext } from '../../../test-support/telemetry.js';
import type { OtlpLogRecord, OtlpLogsRequest, OtlpMetricsRequest } from '../otlp/types.js';
import { createNormalizer, type SessionInfo } from './index.js';

/** Codex's skill.injected metric names a skill, not a conversation: how sure its join is. */
describe('Codex load results from the skill.injected metric', () => {
  const session = (): SessionInfo => ({ cwd: `/${CAPTURE_PROJECT}`, repositoryResolved: true, fingerprints: {} });

  async function run(conversations: 1 | 2): Promise<string[]> {
    const logs = (await captureRequest('codex-explicit', 'logs')) as OtlpLogsRequest;
    const metrics = (await captureRequest('codex-explicit', 'metrics')) as OtlpMetricsRequest;
    const resource = logs.resources.find((r) => r.scopes.some((s) => s.items.some((i) => (i.attributes['event.name'] ?? i.eventName) === 'codex.skill_invocation')))!;
    const scope = resource.scopes.find((s) => s.items.some((i) => (i.attributes['event.name'] ?? i.eventName) === 'codex.skill_invocation'))!;
    const invocation = scope.items.find((i) => (i.attributes['event.name'] ?? i.eventName) === 'codex.skill_invocation') as OtlpLogRecord;
    const convA = String(invocation.attributes['conversation.id']);
    const convB = '01a22a79-0000-7811-a6d8-d7a6749bb675';
    const other: OtlpLogRecord = { ...invocation, spanId: '1'.repeat(16), traceId: 'ab'.repeat(16), timeUnixNano: (BigInt(invocation.timeUnixNano ?? '0') + 1000n).toString(), attributes: { ...invocation.attributes, 'conversation.id': convB, 'turn.id': 'turn-b' } };
    const n = createNormalizer(fakeContext(captureLibrary(), { [convA]: session(), [convB]: session() }));
    const items = conversations === 2 ? [invocation, other] : [invocation];
    const out = [...n.logs({ signal: 'logs', resources: [{ ...resource, scopes: [{ ...scope, items }] }] } as OtlpLogsRequest).events, ...n.metrics(metrics).events];
    return out.filter((e) => e.event_name === 'agent.skill.loaded').map((e) => String(e.attributes['agent.skill.evidence.fidelity']));
  }

  it('is derived when one open activation of the skill could have been injected', async () => {
    assert.deepEqual(await run(1), ['derived']);
  });

  it('is inferred when activations of the skill are open in two conversations (the oldest is a guess)', async () => {
    assert.deepEqual(await run(2), ['inferred']);
  });
});
