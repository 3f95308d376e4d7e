import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import type { EvidenceView } from './evidence.js';
import type { TimelinePage } from './timeline.js';

/**
 * The Git AI checkpoint join (facts.ts `checkpointLookup`): a change summary or outcome naming a
 * checkpoint is read with the checkpoint's record however many other records name the checkpoint,
 * and is shown once, under the activations the record lists.
 */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);
const FP = 'rfp_alice_app_1';
const gitAi = { 'agent.skill.evidence.source': 'git_ai', 'git.ai.version': '1.0', 'git.ai.schema.version': 'authorship/3.0.0' };
const activation = [
  skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_x', 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k', 'agent.skill.trigger.type': 'implicit' }, T0),
  skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'act_x', 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k' }, T0 + 5),
];
const checkpoint = (id: string, cp: string, t: number) =>
  skillRecord('git.ai.checkpoint.created', { ...gitAi, 'agent.skill.event.id': id, 'git.ai.checkpoint.id': cp, 'git.ai.session.id': 'g1', 'git.ai.correlation.fidelity': 'checkpoint_exact', 'agent.skill.activation.ids': ['act_x'] }, t);
/** `n` lines-accepted outcomes naming only checkpoint `cp`, ids `<prefix><i>`, one ms apart from `t` */
const outcomes = (prefix: string, cp: string, n: number, t: number) =>
  Array.from({ length: n }, (_, i) => skillRecord('git.ai.lines.accepted', { ...gitAi, 'agent.skill.event.id': `${prefix}${i}`, 'git.ai.checkpoint.id': cp, 'git.ai.lines.accepted.count': 1 }, t + i));

describe('hub Git AI checkpoint join', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  let repo: string;
  beforeEach(async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    u = f.user('alice');
    repo = await f.linkRepository(u, 'alice/app', [FP]);
  });
  afterEach(async () => f.cleanup());

  const send = async (records: OtlpLogRecord[]) => {
    const body = await encodeOtlpRequest(logsRequest(records, { 'service.name': 'codex', 'forge.repository.fingerprint': FP }), 'protobuf');
    assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
  };
  const timeline = async (): Promise<TimelinePage> => {
    await f.telemetry.drain();
    return f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${repo}/timeline?from=0&limit=1000`, u.pat);
  };
  /** where each event id is shown on the page: under an activation, or unattached in its session */
  const placements = (p: TimelinePage) => {
    const at = new Map<string, string[]>();
    const add = (id: string, where: string) => at.set(id, [...(at.get(id) ?? []), where]);
    for (const s of p.sessions) {
      for (const v of s.activations) for (const r of [...v.gitAiOutcomes, ...v.changes]) add(r.eventId, v.activationId);
      for (const r of [...s.gitAiOutcomes, ...s.events]) add(r.eventId, 'unattached');
    }
    return at;
  };

  it('lists a checkpoint\'s outcomes beyond the first 200 index entries, or says the view is truncated', async () => {
    await send([...activation, checkpoint('cp_1', 't_cp1', T0 + 10)]);
    await send(outcomes('o', 't_cp1', 300, T0 + 1000));
    const p = await timeline();
    const [view] = p.sessions.flatMap((s) => s.activations);
    const at = placements(p);
    const shown = Array.from({ length: 300 }, (_, i) => `o${i}`).filter((id) => at.has(id));
    assert.ok(shown.length === 300 || view.truncated, `${300 - shown.length} outcomes are shown nowhere, and the view is not truncated`);
    assert.deepEqual(shown.filter((id) => at.get(id)!.length !== 1), [], 'each outcome is shown once');
  });

  it('joins outcomes to their checkpoint\'s record when more than 200 of them are timed before it', async () => {
    await send([...activation, ...outcomes('p', 't_cp2', 250, T0 + 1000)]);
    await send([checkpoint('cp_2', 't_cp2', T0 + 5000)]);
    const p = await timeline();
    const [view] = p.sessions.flatMap((s) => s.activations);
    const at = placements(p);
    const ids = Array.from({ length: 250 }, (_, i) => `p${i}`);
    assert.deepEqual(ids.filter((id) => at.get(id)?.join() !== 'act_x'), view.truncated ? ids.filter((id) => !at.has(id)) : [], 'each outcome is shown under act_x alone');
    assert.deepEqual(new Set(view.gitAiOutcomes.map((o) => `${o.attributionFidelity} ${o.activationIds.join()}`)), new Set(['exact act_x']));
    assert.equal(p.gaps.find((g) => g.kind === 'unattributed_change'), undefined);
  });

  it('links a change summary that names only its checkpoint through the checkpoint, as an outcome is (timeline and evidence)', async () => {
    const change = skillRecord('agent.change.summary', { ...gitAi, 'agent.skill.event.id': 'chg_1', 'agent.change.boundary': 'checkpoint', 'git.ai.checkpoint.id': 't_cp3', 'agent.change.file.count': 3 }, T0 + 30);
    // the change arrives before the checkpoint record it is joined to
    await send([...activation, change, ...outcomes('q', 't_cp3', 1, T0 + 31)]);
    await send([checkpoint('cp_3', 't_cp3', T0 + 20)]);
    const p = await timeline();
    const at = placements(p);
    assert.deepEqual([at.get('chg_1'), at.get('q0')], [['act_x'], ['act_x']], 'the change is shown under act_x, like the outcome');
    const [view] = p.sessions.flatMap((s) => s.activations);
    assert.deepEqual(view.changes.map((c) => [c.eventId, c.activationIds, c.attributionFidelity, c.checkpointActivationIds]), [['chg_1', ['act_x'], 'exact', ['act_x']]]);
    assert.equal(p.gaps.find((g) => g.kind === 'unattributed_change'), undefined);
    const evidence = await f.getJson<EvidenceView>('/api/v1/telemetry/skits/o/k/skills/a/evidence?from=0', u.pat);
    assert.deepEqual(evidence.changes.map((c) => [c.eventId, c.attributionFidelity]), [['chg_1', 'exact']]);
  });

  it('shares a change summary reached through a checkpoint that lists several activations', async () => {
    const second = ['agent.skill.selected', 'agent.skill.loaded'].map((name, i) => skillRecord(name, { 'agent.skill.activation.id': 'act_y', 'agent.skill.id': 'o/k:b', 'agent.skill.package.id': 'o/k' }, T0 + 2 + i));
    const cp = skillRecord('git.ai.checkpoint.created', { ...gitAi, 'agent.skill.event.id': 'cp_4', 'git.ai.checkpoint.id': 't_cp4', 'git.ai.session.id': 'g1', 'git.ai.correlation.fidelity': 'checkpoint_exact', 'agent.skill.activation.ids': ['act_x', 'act_y'] }, T0 + 20);
    await send([...activation, ...second, cp, skillRecord('agent.change.summary', { ...gitAi, 'agent.skill.event.id': 'chg_2', 'git.ai.checkpoint.id': 't_cp4' }, T0 + 30)]);
    const p = await timeline();
    const views = p.sessions.flatMap((s) => s.activations);
    assert.deepEqual(views.map((v) => [v.activationId, v.changes.map((c) => [c.eventId, c.activationIds, c.attributionFidelity])]), [
      ['act_x', [['chg_2', ['act_x', 'act_y'], 'shared']]],
      ['act_y', [['chg_2', ['act_x', 'act_y'], 'shared']]],
    ]);
  });
});
