import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';

/** Fact projections derived from one event (facts.ts): attribution is never more exact than its evidence. */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);

describe('hub fact projections: honest attribution', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  it('change_outcomes: filesystem/transcript evidence or an inferred claim never yields exact attribution, as for actions', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    const change = (id: string, t: number, extra: Record<string, string | string[]>) =>
      skillRecord('agent.change.summary', { 'agent.skill.event.id': id, 'agent.change.boundary': 'turn', 'agent.skill.activation.ids': ['act_a'], ...extra }, t);
    const records = [
      skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_a', 'agent.skill.id': 'o/k:a', 'agent.skill.trigger.type': 'implicit' }, T0),
      change('chg_fs', T0 + 10, { 'agent.skill.evidence.source': 'filesystem', 'agent.skill.evidence.fidelity': 'exact' }),
      change('chg_transcript', T0 + 15, { 'agent.skill.evidence.source': 'transcript', 'agent.skill.evidence.fidelity': 'exact', 'agent.skill.attribution.fidelity': 'exact' }),
      change('chg_claim_inferred', T0 + 20, { 'agent.skill.attribution.fidelity': 'inferred' }),
      change('chg_exact', T0 + 30, {}),
      change('chg_two', T0 + 40, { 'agent.skill.activation.ids': ['act_a', 'act_b'] }),
      skillRecord('agent.action.completed', { 'agent.skill.event.id': 'act_transcript', 'agent.action.type': 'filesystem.write', 'agent.skill.activation.ids': ['act_a'], 'agent.skill.attribution.fidelity': 'exact', 'agent.skill.evidence.source': 'transcript' }, T0 + 50),
    ];
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    const changes = ['chg_fs', 'chg_transcript', 'chg_claim_inferred', 'chg_exact', 'chg_two'].map((id) => r.getChange(u.id, id)!);
    assert.deepEqual(changes.map((c) => [c.eventId, c.attributionFidelity, c.reportedFidelity]), [
      ['chg_fs', 'inferred', undefined],
      ['chg_transcript', 'inferred', 'exact'],
      ['chg_claim_inferred', 'inferred', undefined],
      ['chg_exact', 'exact', undefined],
      ['chg_two', 'shared', undefined],
    ]);
    assert.equal(r.getAction(u.id, 'act_transcript')!.attributionFidelity, 'inferred', 'actions follow the same rule');
  });
});
