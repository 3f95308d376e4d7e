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

describe('hub fact projections: change outcomes at a Git AI checkpoint', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => {
    await f?.cleanup();
    f = undefined;
  });

  const gitAi = { 'agent.skill.evidence.source': 'git_ai', 'git.ai.version': 'c57c6c24be03ba89ce7d47783841d2f49ba8ee45', 'git.ai.schema.version': 'authorship/3.0.0' };
  const checkpoint = (id: string, cp: string, correlation: string, ids: string[], t: number) =>
    skillRecord('git.ai.checkpoint.created', { ...gitAi, 'agent.skill.event.id': id, 'git.ai.checkpoint.id': cp, 'git.ai.session.id': 's_c9883b05a2487d', 'git.ai.correlation.fidelity': correlation, 'agent.skill.activation.ids': ids }, t);
  const change = (id: string, cp: string, ids: string[], t: number, extra: Record<string, string> = {}) =>
    skillRecord('agent.change.summary', { ...gitAi, 'agent.skill.event.id': id, 'agent.change.boundary': 'checkpoint', 'git.ai.checkpoint.id': cp, 'agent.skill.activation.ids': ids, ...extra }, t);

  it('credit never exceeds the Git AI correlation, nor is exclusive when the checkpoint recorded several activations', async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    const u = f.user('alice');
    const send = async (records: ReturnType<typeof skillRecord>[]) =>
      assert.equal((await f!.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: u.device })).status, 200);
    const select = (act: string, skill: string) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': `o/k:${skill}`, 'agent.skill.trigger.type': 'implicit' }, T0);
    // the changes arrive before the checkpoints that record their active sets: the join does not depend on arrival order
    await send([
      select('act_m', 'm'), select('act_t', 't'),
      change('chg_session_shared', 't_aaaaaaaaaaaaaa', ['act_m'], T0 + 10, { 'git.ai.correlation.fidelity': 'session_shared' }),
      change('chg_via_checkpoint', 't_aaaaaaaaaaaaaa', ['act_m'], T0 + 11, { 'agent.skill.attribution.fidelity': 'exact' }),
      change('chg_overclaims', 't_aaaaaaaaaaaaaa', ['act_m'], T0 + 16, { 'git.ai.correlation.fidelity': 'checkpoint_exact' }),
      change('chg_inferred', 't_bbbbbbbbbbbbbb', ['act_m'], T0 + 12, { 'git.ai.correlation.fidelity': 'inferred', 'agent.skill.evidence.fidelity': 'derived', 'agent.skill.attribution.fidelity': 'exact' }),
      change('chg_two_active', 't_cccccccccccccc', ['act_t'], T0 + 13),
      change('chg_two_claimed', 't_cccccccccccccc', ['act_t'], T0 + 14, { 'agent.skill.attribution.fidelity': 'exact' }),
      change('chg_one_active', 't_dddddddddddddd', ['act_m'], T0 + 15),
    ]);
    await send([
      checkpoint('cp_shared', 't_aaaaaaaaaaaaaa', 'session_shared', ['act_m'], T0 + 5),
      checkpoint('cp_two', 't_cccccccccccccc', 'checkpoint_exact', ['act_m', 'act_t'], T0 + 6),
      checkpoint('cp_one', 't_dddddddddddddd', 'checkpoint_exact', ['act_m'], T0 + 7),
    ]);
    await f.telemetry.drain();
    const r = f.telemetry.reader();
    const ids = ['chg_session_shared', 'chg_via_checkpoint', 'chg_overclaims', 'chg_inferred', 'chg_two_active', 'chg_two_claimed', 'chg_one_active'];
    assert.deepEqual(ids.map((id) => r.getChange(u.id, id)!).map((c) => [c.eventId, c.attributionFidelity, c.reportedFidelity, c.correlationFidelity, c.checkpointActivationIds]), [
      // session-level context is never presented as checkpoint-exact
      ['chg_session_shared', 'shared', undefined, 'session_shared', ['act_m']],
      // the change names no correlation: its checkpoint's applies; the client's claim is kept
      ['chg_via_checkpoint', 'shared', 'exact', 'session_shared', ['act_m']],
      // a change cannot claim a closer correlation than its checkpoint's record
      ['chg_overclaims', 'shared', undefined, 'session_shared', ['act_m']],
      ['chg_inferred', 'inferred', 'exact', 'inferred', undefined],
      // the checkpoint recorded two active skills: never exclusive credit for the one the change names
      ['chg_two_active', 'shared', undefined, 'checkpoint_exact', ['act_m', 'act_t']],
      ['chg_two_claimed', 'shared', 'exact', 'checkpoint_exact', ['act_m', 'act_t']],
      ['chg_one_active', 'exact', undefined, 'checkpoint_exact', ['act_m']],
    ]);
    assert.deepEqual([...r.allChanges()].filter((c) => c.eventId === 'chg_two_active').map((c) => c.attributionFidelity), ['shared'], 'every read joins the checkpoint');
  });
});
