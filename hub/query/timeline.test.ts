import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import type { TimelinePage } from './timeline.js';
import type { ActivationView } from './views.js';
import type { UsageReport } from './usage.js';

/** The repository timeline shows everything linked to what it renders, and names every identity gap. */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);
const FP = 'rfp_alice_app_1';
const sel = (act: string) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a', 'agent.skill.trigger.type': 'implicit' }, T0);
const loaded = (act: string) => skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': act, 'agent.skill.id': 'o/k:a' }, T0 + 5);

describe('hub repository timeline: nothing linked disappears, every gap is named', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  let repo: string;
  beforeEach(async () => {
    f = await telemetryFixture({ now: () => T0 + 86_400_000 });
    u = f.user('alice');
    repo = await f.linkRepository(u, 'alice/app', [FP]);
  });
  afterEach(async () => f.cleanup());

  const page = async (records: OtlpLogRecord[]): Promise<TimelinePage> => {
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records, { 'service.name': 'codex', 'forge.repository.fingerprint': FP }), 'protobuf'), { auth: u.device })).status, 200);
    await f.telemetry.drain();
    return f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${repo}/timeline?from=0`, u.pat);
  };

  it('flags an action linked to no activation as unattributed', async () => {
    const p = await page([sel('act_a'), loaded('act_a'),
      skillRecord('agent.action.completed', { 'agent.skill.event.id': 'orphan', 'agent.action.type': 'git.push', 'agent.skill.attribution.fidelity': 'unknown' }, T0 + 100),
      skillRecord('agent.action.completed', { 'agent.skill.event.id': 'linked', 'agent.action.type': 'git.push', 'agent.skill.activation.ids': ['act_a'], 'agent.skill.attribution.fidelity': 'exact' }, T0 + 200)]);
    assert.deepEqual(p.gaps.find((g) => g.kind === 'unattributed_action')?.sample, ['orphan']);
    assert.deepEqual(p.sessions[0].events.map((e) => e.eventId), ['orphan'], 'and it is shown in its session');
  });

  it('shows every event linked to an activation, each in its section (a Git AI checkpoint, feedback, a plain span)', async () => {
    const p = await page([sel('act_a'), loaded('act_a'),
      skillRecord('git.ai.checkpoint.created', { 'agent.skill.event.id': 'cp_1', 'git.ai.checkpoint.id': 't_abc', 'git.ai.session.id': 'g1', 'git.ai.correlation.fidelity': 'checkpoint_exact', 'agent.skill.activation.ids': ['act_a'] }, T0 + 100),
      skillRecord('agent.skill.feedback', { 'agent.skill.event.id': 'fb_1', 'agent.skill.feedback.sentiment': 'positive', 'agent.skill.id': 'o/k:a', 'agent.skill.activation.id': 'act_a' }, T0 + 200),
      skillRecord('agent.skill.audit.completed', { 'agent.skill.event.id': 'other_1', 'agent.skill.activation.ids': ['act_a'] }, T0 + 300)]);
    const [activation] = p.sessions.flatMap((s) => s.activations);
    assert.deepEqual(activation.gitAiCheckpoints.map((c) => [c.eventId, c.correlationFidelity]), [['cp_1', 'checkpoint_exact']]);
    assert.deepEqual(activation.interventions.map((i) => i.eventId), ['fb_1']);
    assert.deepEqual(activation.events.map((e) => [e.eventId, e.eventName]), [['other_1', 'agent.skill.audit.completed']], 'an event with no section of its own');
  });

  const gitAi = { 'agent.skill.evidence.source': 'git_ai', 'git.ai.version': 'c57c6c24be03ba89ce7d47783841d2f49ba8ee45', 'git.ai.schema.version': 'authorship/3.0.0' };

  it('projects Git AI checkpoints and attribution outcomes, joined by checkpoint id to the activations the checkpoint recorded', async () => {
    const cp = 't_9f8e7d6c5b4a32';
    const p = await page([sel('act_a'), loaded('act_a'), sel('act_b'),
      // the accepted lines name only their checkpoint, and arrive before it
      skillRecord('git.ai.lines.accepted', { ...gitAi, 'agent.skill.event.id': 'acc_1', 'git.ai.checkpoint.id': cp, 'git.ai.lines.accepted.count': 96 }, T0 + 300),
      skillRecord('git.ai.checkpoint.created', { ...gitAi, 'agent.skill.event.id': 'cp_1', 'git.ai.checkpoint.id': cp, 'git.ai.session.id': 's_c9883b05a2487d', 'git.ai.attestation.key': `s_c9883b05a2487d::${cp}`, 'git.ai.correlation.fidelity': 'session_shared', 'agent.skill.activation.ids': ['act_a'] }, T0 + 100),
      skillRecord('git.ai.commit.attributed', { ...gitAi, 'agent.skill.event.id': 'commit_1', 'git.ai.commit.sha': '4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'git.ai.lines.generated.count': 120, 'git.ai.lines.committed.count': 90, 'agent.skill.activation.ids': ['act_a', 'act_b'] }, T0 + 400)]);
    const [a, b] = p.sessions.flatMap((s) => s.activations);
    assert.deepEqual(a.gitAiCheckpoints.map((c) => [c.eventId, c.checkpointId, c.gitAiSessionId, c.correlationFidelity, c.activationIds]), [['cp_1', cp, 's_c9883b05a2487d', 'session_shared', ['act_a']]]);
    const outcome = (o: ActivationView['gitAiOutcomes'][number]) => [o.eventId, o.eventName, o.checkpointId, o.commitSha, o.lines, o.correlationFidelity, o.activationIds, o.attributionFidelity];
    assert.deepEqual(a.gitAiOutcomes.map(outcome), [
      ['acc_1', 'git.ai.lines.accepted', cp, undefined, { accepted: 96 }, 'session_shared', ['act_a'], 'shared'],
      ['commit_1', 'git.ai.commit.attributed', undefined, '4b825dc642cb6eb9a060e54bf8d69288fbee4904', { committed: 90, generated: 120 }, undefined, ['act_a', 'act_b'], 'shared'],
    ]);
    assert.deepEqual(b.gitAiOutcomes.map((o) => o.eventId), ['commit_1']);
    assert.deepEqual([a.events, b.events, p.sessions.flatMap((s) => s.events)], [[], [], []], 'no Git AI record is left as a bare event');
  });

  it('flags a change outcome linked to no activation, as for actions', async () => {
    const p = await page([sel('act_a'), loaded('act_a'),
      skillRecord('agent.change.summary', { ...gitAi, 'agent.skill.event.id': 'chg_orphan', 'agent.change.boundary': 'checkpoint', 'git.ai.checkpoint.id': 't_bbbbbbbbbbbbbb', 'agent.change.line.added.count': 40 }, T0 + 100),
      skillRecord('git.ai.commit.attributed', { ...gitAi, 'agent.skill.event.id': 'commit_orphan', 'git.ai.commit.sha': '4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'git.ai.lines.committed.count': 9 }, T0 + 150),
      skillRecord('agent.change.summary', { 'agent.skill.event.id': 'chg_linked', 'agent.change.boundary': 'turn', 'agent.skill.activation.ids': ['act_a'], 'agent.skill.attribution.fidelity': 'exact' }, T0 + 200)]);
    const g = p.gaps.find((x) => x.kind === 'unattributed_change');
    assert.deepEqual([g?.count, g?.sample.sort()], [2, ['chg_orphan', 'commit_orphan']]);
    assert.deepEqual(p.gaps.find((x) => x.kind === 'unattributed_action'), undefined, 'a change is not an action');
  });

  it('flags activation events without their required activation id (they build no activation and are not in usage)', async () => {
    const s = sel('x');
    const l = loaded('x');
    delete s.attributes['agent.skill.activation.id'];
    delete l.attributes['agent.skill.activation.id'];
    const p = await page([s, l]);
    const usage = await f.getJson<UsageReport>('/api/v1/telemetry/skits/o/k/usage?from=2026-08-01T00:00:00Z', u.pat);
    assert.equal(usage.totals.activations, 0, 'no activation is invented');
    const missing = p.gaps.find((g) => g.kind === 'missing_activation_id');
    assert.deepEqual([missing?.count, missing?.sample.sort()], [2, [s.attributes['agent.skill.event.id'], l.attributes['agent.skill.event.id']].sort()]);
  });
  it('groups a session by agent: each session is headed by the agent and model of everything in it', async () => {
    const act = (id: string, agent: string, model: string, t: number) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': id, 'agent.skill.id': 'o/k:a', 'session.id': 'sess_1', 'gen_ai.agent.name': agent, 'gen_ai.request.model': model }, t);
    const p = await page([act('act_p', 'planner', 'model-a', T0), act('act_c', 'coder', 'model-b', T0 + 1000), act('act_c2', 'coder', 'model-c', T0 + 2000)]);
    const view = p.sessions.map((s) => [s.sessionId, s.agentName, s.model, s.models, s.activations.map((a) => [a.activationId, a.agentName])]);
    assert.deepEqual(view, [
      ['sess_1', 'coder', undefined, ['model-b', 'model-c'], [['act_c', 'coder'], ['act_c2', 'coder']]],
      ['sess_1', 'planner', 'model-a', ['model-a'], [['act_p', 'planner']]],
    ]);
  });
  it('shows how the library resolved an activation\'s skill, and no SKIT for an unresolved one', async () => {
    const p = await page([
      skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'act_mine', 'agent.skill.id': 'not_installed:my-own', 'agent.skill.library.resolution': 'not_installed' }, T0),
      skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'act_kit', 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k', 'agent.skill.library.resolution': 'exact_path' }, T0 + 10),
    ]);
    const view = p.sessions.flatMap((s) => s.activations).map((a) => [a.activationId, a.skillId, a.packageId, a.libraryResolution]);
    assert.deepEqual(view, [['act_mine', 'not_installed:my-own', undefined, 'not_installed'], ['act_kit', 'o/k:a', 'o/k', 'exact_path']]);
  });
});
