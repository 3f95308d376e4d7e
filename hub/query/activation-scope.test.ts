import assert from 'node:assert/strict';
import { encodeOtlpRequest, type OtlpLogRecord } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import type { EvidenceView } from './evidence.js';
import type { TimelinePage } from './timeline.js';
import type { ActivationView } from './views.js';

/**
 * What a repository timeline credits to an activation: only items resolved to that repository
 * (the others are counted, never silently dropped), and never an action that happened before the
 * activation existed as exact.
 */

const T0 = Date.UTC(2026, 7, 9, 12, 0, 0);
const APP = 'rfp_alice_app_1';
const LIB = 'rfp_alice_lib_1';
const UNLINKED = 'rfp_nobody_links_this';
const skill = { 'agent.skill.id': 'o/k:a', 'agent.skill.package.id': 'o/k' };
const selected = (act: string, t = T0) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, ...skill, 'agent.skill.trigger.type': 'implicit' }, t);
const loaded = (act: string, t = T0 + 5) => skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': act, ...skill }, t);
const action = (id: string, t: number, extra: Record<string, string | string[]> = {}) =>
  skillRecord('agent.action.completed', { 'agent.skill.event.id': id, 'agent.action.type': 'filesystem.write', 'agent.skill.activation.ids': ['act_a'], 'agent.skill.attribution.fidelity': 'exact', ...extra }, t);
const change = (id: string, t: number) =>
  skillRecord('agent.change.summary', { 'agent.skill.event.id': id, 'agent.change.boundary': 'checkpoint', 'git.ai.checkpoint.id': `t_${id}`, 'agent.skill.activation.ids': ['act_a'], 'agent.skill.attribution.fidelity': 'exact', 'agent.change.line.added.count': 500 }, t);

describe('hub activation views: repository scope and causality', () => {
  let f: TelemetryFixture;
  let u: TelemetryUser;
  let app: string;
  let lib: string;
  const NOW = T0 + 86_400_000;
  beforeEach(async () => {
    f = await telemetryFixture({ now: () => NOW });
    u = f.user('alice');
    app = await f.linkRepository(u, 'alice/app', [APP]);
    lib = await f.linkRepository(u, 'alice/lib', [LIB]);
  });
  afterEach(async () => f.cleanup());

  const send = async (records: OtlpLogRecord[], fingerprint = APP) => {
    const body = await encodeOtlpRequest(logsRequest(records, { 'service.name': 'claude-code', 'forge.repository.fingerprint': fingerprint }), 'protobuf');
    assert.equal((await f.post('logs', body, { auth: u.device })).status, 200);
  };
  const timeline = async (repo: string): Promise<TimelinePage> => {
    await f.telemetry.drain();
    return f.getJson<TimelinePage>(`/api/v1/telemetry/repositories/${repo}/timeline?from=0`, u.pat);
  };
  const activation = (p: TimelinePage, id: string): ActivationView => p.sessions.flatMap((s) => s.activations).find((a) => a.activationId === id)!;
  const gapOf = (p: TimelinePage, kind: string) => p.gaps.find((g) => g.kind === kind);

  describe('repository scope (items of an unlinked or another repository)', () => {
    beforeEach(async () => {
      await send([selected('act_a'), loaded('act_a'), action('app_action', T0 + 100)]);
      await send([
        change('unlinked_change', T0 + 200),
        skillRecord('git.ai.checkpoint.created', { 'agent.skill.event.id': 'unlinked_cp', 'git.ai.checkpoint.id': 't_unlinked', 'git.ai.session.id': 's_1', 'git.ai.correlation.fidelity': 'checkpoint_exact', 'agent.skill.activation.ids': ['act_a'] }, T0 + 210),
        action('unlinked_action', T0 + 220),
        skillRecord('agent.user.intervention', { 'agent.skill.event.id': 'unlinked_stop', 'agent.user.intervention.type': 'stop', 'agent.skill.activation.id': 'act_a', ...skill }, T0 + 230),
      ], UNLINKED);
      await send([change('lib_change', T0 + 300)], LIB);
    });

    it('shows under an activation only the items resolved to the timeline\'s repository, and counts the others as a gap', async () => {
      const p = await timeline(app);
      const a = activation(p, 'act_a');
      assert.deepEqual(
        [a.actions.map((x) => x.eventId), a.changes.map((x) => x.eventId), a.events.map((x) => x.eventId), a.interventions.map((x) => x.eventId)],
        [['app_action'], [], [], []],
      );
      const elsewhere = ['lib_change', 'unlinked_action', 'unlinked_change', 'unlinked_cp', 'unlinked_stop'];
      assert.deepEqual([...a.otherRepositoryItems].sort(), elsewhere, 'the activation counts what it does not show');
      const g = gapOf(p, 'activation_item_other_repository');
      assert.deepEqual([g?.count, [...(g?.sample ?? [])].sort()], [5, elsewhere]);
    });

    it('shows another linked repository\'s items in that repository\'s timeline, under the same activation', async () => {
      const a = activation(await timeline(lib), 'act_a');
      assert.deepEqual(a.changes.map((x) => [x.eventId, x.repositoryId]), [['lib_change', lib]]);
      assert.equal(a.actions.length, 0);
      assert.ok(a.otherRepositoryItems.includes('app_action'));
    });

    it('keeps every repository\'s items in the skill evidence view, which is not a repository view', async () => {
      await f.telemetry.drain();
      const e = await f.getJson<EvidenceView>('/api/v1/telemetry/skits/o/k/skills/a/evidence?from=2026-08-01T00:00:00Z', u.pat);
      assert.deepEqual(e.changes.map((c) => c.eventId).sort(), ['lib_change', 'unlinked_change']);
      assert.deepEqual(e.actions.map((c) => c.eventId).sort(), ['app_action', 'unlinked_action']);
    });
  });

  describe('causality (an action before its activation was first seen)', () => {
    it('credits an action timed before the activation\'s selection inferred at most, and names it as a gap', async () => {
      await send([selected('act_a'), loaded('act_a'), action('before', T0 - 3_600_000), action('after', T0 + 100)]);
      const p = await timeline(app);
      const a = activation(p, 'act_a');
      assert.deepEqual(a.actions.map((x) => [x.eventId, x.attributionFidelity, x.reportedFidelity]), [['before', 'inferred', 'exact'], ['after', 'exact', undefined]]);
      assert.deepEqual(a.actionsBeforeActivation, ['before']);
      assert.deepEqual(gapOf(p, 'action_before_activation')?.sample, ['before']);
      const e = await f.getJson<EvidenceView>('/api/v1/telemetry/skits/o/k/skills/a/evidence?from=2026-08-01T00:00:00Z', u.pat);
      assert.deepEqual(e.actions.map((x) => [x.eventId, x.attributionFidelity]).sort(), [['after', 'exact'], ['before', 'inferred']]);
    });

    it('tolerates a few seconds of clock jitter between emitters', async () => {
      await send([selected('act_a'), action('jitter', T0 - 2_000)]);
      const p = await timeline(app);
      assert.deepEqual(activation(p, 'act_a').actions.map((x) => [x.eventId, x.attributionFidelity]), [['jitter', 'exact']]);
      assert.equal(gapOf(p, 'action_before_activation'), undefined);
    });

    it('does not judge an action whose time is the hub\'s receipt time (a device clock ahead of the hub)', async () => {
      // the selection is 23 h ahead (plausible, kept); the action has no source time and is placed at receipt
      const late = action('received', 0);
      late.timeUnixNano = '0';
      late.observedTimeUnixNano = '0';
      await send([selected('act_a', NOW + 23 * 3_600_000), late]);
      const p = await timeline(app);
      assert.deepEqual(activation(p, 'act_a').actions.map((x) => [x.eventId, x.attributionFidelity]), [['received', 'exact']]);
      assert.equal(gapOf(p, 'action_before_activation'), undefined);
      assert.deepEqual(gapOf(p, 'time_not_from_source')?.sample, ['received']);
    });
  });
});
