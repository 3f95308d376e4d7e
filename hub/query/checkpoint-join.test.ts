import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
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
});
