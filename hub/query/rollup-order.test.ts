import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import type { UsageReport } from './usage.js';

/** Usage rollups do not depend on the order an activation's events arrive in (offline retries reorder them). */
describe('hub usage rollups: the same whichever event arrives first', () => {
  let f: TelemetryFixture | undefined;
  afterEach(async () => f?.cleanup());

  // a selection just before midnight, its load result just after: in order, and the other way round
  const MIDNIGHT = Date.UTC(2026, 7, 10);
  const events = (act: string, skill: string) => [
    skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': skill, 'agent.skill.trigger.type': 'explicit', 'artifact.version': '1.0.0', 'session.id': `s_${act}` }, MIDNIGHT - 100),
    skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': act, 'agent.skill.id': skill, 'artifact.version': '1.0.0', 'session.id': `s_${act}` }, MIDNIGHT + 100),
  ];

  it('counts the trigger and the day of a load result that came before its selection, once', async () => {
    f = await telemetryFixture({ now: () => MIDNIGHT + 86_400_000 });
    const u = f.user('alice');
    const [selX, loadX] = events('act_x', 'p/x:x');
    const [selY, loadY] = events('act_y', 'p/y:y');
    for (const batch of [[loadX], [selX], [selY], [loadY]]) {
      await f.post('logs', await encodeOtlpRequest(logsRequest(batch), 'protobuf'), { auth: u.device });
      await f.telemetry.drain();
    }
    const usage = async (pkg: string) => (await f!.getJson(`/api/v1/telemetry/skits/${pkg}/usage?from=2026-08-01T00:00:00Z`, u.pat)) as UsageReport;
    const [x, y] = [await usage('p/x'), await usage('p/y')];
    assert.deepEqual(x.totals, y.totals, 'out of order (x) and in order (y) count the same');
    assert.deepEqual([x.totals.activations, x.totals.explicit, x.totals.loaded], [1, 1, 1]);
    assert.deepEqual(JSON.stringify(x.days ?? x), JSON.stringify(y.days ?? y).replaceAll('p/y', 'p/x').replaceAll(':y', ':x'));
  });

  it('counts feedback under its activation\'s skill whether it arrives before or after the activation', async () => {
    f = await telemetryFixture({ now: () => MIDNIGHT + 86_400_000 });
    const u = f.user('alice');
    const feedback = (act: string) =>
      skillRecord('agent.user.intervention', { 'agent.skill.activation.id': act, 'agent.user.intervention.type': 'negative_feedback', 'session.id': `s_${act}` }, MIDNIGHT + 200);
    const [selX, loadX] = events('act_fx', 'p/fx:fx');
    const [selY, loadY] = events('act_fy', 'p/fy:fy');
    // x: the feedback first; y: the feedback last
    for (const batch of [[feedback('act_fx')], [selX, loadX], [selY, loadY], [feedback('act_fy')]]) {
      await f.post('logs', await encodeOtlpRequest(logsRequest(batch), 'protobuf'), { auth: u.device });
      await f.telemetry.drain();
    }
    const usage = async (pkg: string) => (await f!.getJson(`/api/v1/telemetry/skits/${pkg}/usage?from=2026-08-01T00:00:00Z`, u.pat)) as UsageReport;
    const [x, y] = [await usage('p/fx'), await usage('p/fy')];
    assert.equal(y.totals.interventions, 1, JSON.stringify(y.totals));
    assert.deepEqual(x.totals, y.totals, 'feedback first (x) and last (y) count the same');
  });

  it('splits activation counts by the fidelity of their evidence, never one unexplained total', async () => {
    f = await telemetryFixture({ now: () => MIDNIGHT + 86_400_000 });
    const u = f.user('alice');
    const at = (act: string, fidelity: string, source: string) =>
      skillRecord('agent.skill.selected', { 'agent.skill.activation.id': act, 'agent.skill.id': 'p/fid:fid', 'agent.skill.trigger.type': 'explicit', 'agent.skill.evidence.fidelity': fidelity, 'agent.skill.evidence.source': source, 'session.id': 's_fid' }, MIDNIGHT - 1000);
    await f.post('logs', await encodeOtlpRequest(logsRequest([at('act_e', 'exact', 'native_otel'), at('act_i', 'inferred', 'transcript'), at('act_d', 'derived', 'native_otel')]), 'protobuf'), { auth: u.device });
    await f.telemetry.drain();
    const usage = (await f.getJson(`/api/v1/telemetry/skits/p/fid/usage?from=2026-08-01T00:00:00Z`, u.pat)) as UsageReport;
    const t = usage.totals;
    assert.deepEqual([t.activations, t.exact, t.derived, t.inferred, t.unknownFidelity], [3, 1, 1, 1, 0], JSON.stringify(t));
  });

  it('the skill evidence view counts an activation on the day usage does, whichever of its events arrives first', async () => {
    const out: unknown[] = [];
    for (const order of ['selection first', 'load result first']) {
      f = await telemetryFixture({ now: () => MIDNIGHT + 86_400_000 });
      const u = f.user('alice');
      const [sel, load] = events('act_e', 'p/e:e');
      for (const batch of order === 'selection first' ? [[sel], [load]] : [[load], [sel]]) {
        await f.post('logs', await encodeOtlpRequest(logsRequest(batch), 'protobuf'), { auth: u.device });
        await f.telemetry.drain();
      }
      const day = async (d: string) => {
        // date-only bounds: the whole UTC day on every route (usage takes no other time than a midnight)
        const q = `from=${d}&to=${d}`;
        const evidence = (await f!.getJson(`/api/v1/telemetry/skits/p/e/skills/e/evidence?${q}`, u.pat)) as { activations: unknown[] };
        const usage = (await f!.getJson(`/api/v1/telemetry/skits/p/e/skills/e/usage?${q}`, u.pat)) as UsageReport;
        return [evidence.activations.length, usage.totals.activations];
      };
      out.push([order, await day('2026-08-09'), await day('2026-08-10')]);
      await f.cleanup();
      f = undefined;
    }
    assert.deepEqual(out, [
      ['selection first', [1, 1], [0, 0]],
      ['load result first', [1, 1], [0, 0]],
    ]);
  });

  it('an activation whose skill only a later event names is in the skill\'s usage and evidence, as in the timeline', async () => {
    f = await telemetryFixture({ now: () => MIDNIGHT + 86_400_000 });
    const u = f.user('alice');
    const records = [
      skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_b', 'agent.skill.package.id': 'p/bund', 'agent.skill.trigger.type': 'implicit', 'session.id': 's9' }, MIDNIGHT - 5000),
      skillRecord('agent.skill.loaded', { 'agent.skill.activation.id': 'act_b', 'agent.skill.package.id': 'p/bund', 'agent.skill.id': 'p/bund:child1', 'session.id': 's9' }, MIDNIGHT - 4950),
    ];
    await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: u.device });
    await f.telemetry.drain();
    const usage = (await f.getJson('/api/v1/telemetry/skits/p/bund/usage?from=2026-08-01T00:00:00Z', u.pat)) as UsageReport;
    assert.deepEqual(usage.skills.map((s) => [s.skillId, s.activations]), [['p/bund:child1', 1]]);
    assert.equal(usage.bundleLevel.activations, 0, 'not counted as a SKIT-level activation as well');
    const evidence = (await f.getJson('/api/v1/telemetry/skits/p/bund/skills/child1/evidence?from=2026-08-01T00:00:00Z', u.pat)) as { activations: { activationId: string }[] };
    assert.deepEqual(evidence.activations.map((a) => a.activationId), ['act_b']);
  });
});
