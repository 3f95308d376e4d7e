import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import type { EvidenceView } from '../query/evidence.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';

/**
 * An action's attribution is never stronger than its evidence (registry agent.skill.evidence.fidelity):
 * exact or derived evidence supports any claim, inferred evidence `inferred` at most, and evidence
 * of unknown (or unregistered) fidelity `unknown` at most; a lowered claim is kept as reported. A
 * fidelity not given (a native tool span carries none) leaves the claim alone.
 */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

describe('hub activation_actions: attribution bounded by evidence fidelity', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  beforeEach(async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    u = f.user('alice');
  });
  afterEach(async () => f.cleanup());

  const send = async (records: OtlpLogRecord[]) => {
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
  };
  const selected = (act: string, skill: string) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': `o/k:${skill}`, 'agent.skill.package.id': 'o/k', 'agent.skill.trigger.type': 'implicit' }, T0);
  const action = (id: string, evidence: string | undefined, extra: Record<string, string | string[]>) => {
    const r = skillRecord('agent.action.completed', { 'agent.skill.event.id': id, 'agent.action.type': 'filesystem.write', 'agent.skill.activation.ids': ['act_a'], ...extra }, T0 + 1000);
    if (evidence === undefined) delete r.attributes['agent.skill.evidence.fidelity'];
    else r.attributes['agent.skill.evidence.fidelity'] = evidence;
    return r;
  };

  it('evidence of unknown or unregistered fidelity supports at most `unknown`; derived or unstated evidence keeps an exact claim', async () => {
    await send([selected('act_a', 'a'), selected('act_b', 'b'),
      action('unknown_exact', 'unknown', { 'agent.skill.attribution.fidelity': 'exact' }),
      action('unknown_shared', 'unknown', { 'agent.skill.activation.ids': ['act_a', 'act_b'], 'agent.skill.attribution.fidelity': 'shared' }),
      action('unknown_inferred', 'unknown', { 'agent.skill.attribution.fidelity': 'inferred' }),
      action('bogus_exact', 'bogus', { 'agent.skill.attribution.fidelity': 'exact' }),
      action('missing_exact', undefined, { 'agent.skill.attribution.fidelity': 'exact' }),
      action('derived_exact', 'derived', { 'agent.skill.attribution.fidelity': 'exact' }),
      action('inferred_two', 'inferred', { 'agent.skill.activation.ids': ['act_a', 'act_b'] })]);
    const r = f.telemetry.reader();
    const rows = ['unknown_exact', 'unknown_shared', 'unknown_inferred', 'bogus_exact', 'missing_exact', 'derived_exact', 'inferred_two'].map((id) => r.getAction(u.id, id)!);
    assert.deepEqual(rows.map((a) => [a.eventId, a.attributionFidelity, a.reportedFidelity]), [
      ['unknown_exact', 'unknown', 'exact'],
      ['unknown_shared', 'unknown', 'shared'],
      ['unknown_inferred', 'unknown', 'inferred'],
      ['bogus_exact', 'unknown', 'exact'],
      ['missing_exact', 'exact', undefined],
      ['derived_exact', 'exact', undefined],
      // several activations default to shared, but inferred evidence never supports more than inferred
      ['inferred_two', 'inferred', undefined],
    ]);
  });

  it('an action of unknown evidence fidelity never makes a capability observed in the evidence view', async () => {
    await send([selected('act_a', 'a'), action('unknown_exact', 'unknown', { 'agent.skill.attribution.fidelity': 'exact' })]);
    const e = await f.getJson<EvidenceView>('/api/v1/telemetry/skits/o/k/skills/a/evidence?from=2026-08-01T00:00:00Z', u.pat);
    assert.deepEqual(e.capabilities.map((c) => [c.capability, c.observed, c.actionsByFidelity]), [
      ['filesystem.write', false, { exact: 0, shared: 0, inferred: 0, unknown: 1 }],
    ]);
  });
});
