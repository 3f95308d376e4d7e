import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpAttributes, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import type { EvidenceView } from '../query/evidence.js';
import type { UsageReport } from '../query/usage.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';

/**
 * skill_activations identity and merging: an activation is (account, device, activation id), and
 * its row is the same whichever order its events arrive in.
 */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);
const sel = (act: string, extra: OtlpAttributes = {}, t = T0) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a', 'agent.skill.trigger.type': 'implicit', ...extra }, t);
const loaded = (act: string, extra: OtlpAttributes = {}, t = T0 + 5) => skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a', ...extra }, t);

async function post(f: TelemetryFixture, u: TelemetryUser, records: OtlpLogRecord[], resource: OtlpAttributes = { 'service.name': 'claude-code' }): Promise<void> {
  assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records, resource), 'protobuf'), { auth: u.device })).status, 200);
  await f.telemetry.drain();
}

const usage = async (f: TelemetryFixture, u: TelemetryUser) => f.getJson<UsageReport>('/api/v1/telemetry/skits/o/k/usage?from=2026-08-01T00:00:00Z', u.pat);

describe('hub skill_activations: identity and order', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  it('the same activation id on two devices is two activations, and an action is credited to its own device\'s only', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const d1 = f.user('alice');
    const d2 = f.user('alice'); // a second device credential of the same account
    assert.notEqual(d1.deviceId, d2.deviceId);
    await post(f, d1, [sel('act_1', { 'session.id': 'S1' }), loaded('act_1', { 'session.id': 'S1' })]);
    await post(f, d2, [
      sel('act_1', { 'session.id': 'S2', 'agent.skill.id': 'o/k:b', 'agent.skill.trigger.type': 'explicit' }, T0 + 1000),
      skillRecord('agent.action.completed', { 'agent.skill.event.id': 'push', 'agent.action.type': 'git.push', 'agent.skill.activation.ids': ['act_1'], 'agent.skill.attribution.fidelity': 'exact', 'session.id': 'S2' }, T0 + 2000),
    ], { 'service.name': 'codex' });
    const r = f.telemetry.reader();
    const [a1, a2] = [r.getActivation(d1.id, 'act_1', d1.deviceId)!, r.getActivation(d1.id, 'act_1', d2.deviceId)!];
    assert.deepEqual([a1.skillId, a1.sessionId, a1.triggerType, a1.load], ['o/k:a', 'S1', 'implicit', 'complete']);
    assert.deepEqual([a2.skillId, a2.sessionId, a2.triggerType, a2.load], ['o/k:b', 'S2', 'explicit', 'pending']);
    const action = r.getAction(d1.id, 'push')!;
    assert.deepEqual([action.deviceId, action.sessionId, action.attributionFidelity], [d2.deviceId, 'S2', 'exact']);
    assert.deepEqual((await usage(f, d1)).skills.map((s) => [s.skillId, s.activations]), [['o/k:a', 1], ['o/k:b', 1]]);
    const evidence = (skill: string) => f!.getJson<EvidenceView>(`/api/v1/telemetry/skits/o/k/skills/${skill}/evidence?from=2026-08-01T00:00:00Z`, d1.pat);
    const [ea, eb] = [await evidence('a'), await evidence('b')];
    assert.deepEqual(ea.activations.map((v) => [v.deviceId, v.sessionId, v.actions.length]), [[d1.deviceId, 'S1', 0]], 'the push of S2 is not credited to the activation of S1');
    assert.deepEqual(eb.activations.map((v) => [v.deviceId, v.sessionId, v.actions.map((x) => x.eventId)]), [[d2.deviceId, 'S2', ['push']]]);
  });

  it('the activation row and per-version usage do not depend on the order its events arrive in', async () => {
    const s = sel('act_o', { 'agent.skill.event.id': 'e_sel', 'artifact.version': '1.0.0', 'agent.skill.evidence.source': 'transcript', 'agent.skill.evidence.fidelity': 'inferred', 'agent.runtime.autonomy.mode': 'interactive' });
    const l = loaded('act_o', { 'agent.skill.event.id': 'e_load', 'artifact.version': '1.1.0', 'agent.skill.evidence.source': 'native_hook', 'agent.runtime.autonomy.mode': 'full_access', 'session.id': 'S_load' });
    const out: unknown[] = [];
    for (const order of [[s, l], [l, s]]) {
      f = await telemetryFixture({ now: () => T0 + 86_400_000 });
      const u = f.user('alice');
      for (const rec of order) await post(f, u, [rec]);
      const { deviceId: _d, accountId: _a, ...row } = f.telemetry.reader().getActivation(u.id, 'act_o', u.deviceId)!;
      const report = await usage(f, u);
      out.push({ row, versions: report.versions.map((v) => [v.version, v.activations, v.loaded]) });
      await f.cleanup();
      f = undefined;
    }
    assert.deepStrictEqual(out[1], out[0]);
    const { row, versions } = out[0] as { row: Record<string, unknown>; versions: unknown[] };
    // what was loaded comes from the load result, how and where it was selected from the selection;
    // the weakest fidelity is kept with the source it came from
    assert.deepEqual(
      [row.artifactVersion, row.autonomyMode, row.sessionId, row.evidenceSource, row.evidenceFidelity],
      ['1.1.0', 'interactive', 'sess_test', 'transcript', 'inferred'],
    );
    assert.deepEqual(versions, [['1.1.0', 1, 1]]);
  });
});
