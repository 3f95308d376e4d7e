import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture } from '../test-support/telemetry-fixture.js';
import type { UsageReport } from './usage.js';

const D = Date.UTC(2026, 11, 1);
const DAY = 86_400_000;

/**
 * Two sessions: one across midnight (an activation of skill a on each side), one with an
 * activation of skill a and one of skill b on day D.
 */
async function twoSessions(f: TelemetryFixture): Promise<UsageReport> {
  const alice = f.user('alice');
  const act = (id: string, skill: string, session: string, at: number) =>
    skillRecord('agent.skill.selected', { 'agent.skill.activation.id': id, 'agent.skill.id': `owner/pkg:${skill}`, 'session.id': session }, at);
  const records = [act('act_n1', 'a', 'sess_night', D - 10_000), act('act_n2', 'a', 'sess_night', D + 10_000), act('act_t1', 'a', 'sess_two', D + 3_600_000), act('act_t2', 'b', 'sess_two', D + 7_200_000)];
  assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: alice.device })).status, 200);
  await f.telemetry.drain();
  return f.getJson<UsageReport>('/api/v1/telemetry/skits/owner/pkg/usage?from=2026-11-30&to=2026-12-01', alice.pat);
}

describe('hub usage: distinct sessions per bucket', () => {
  let f: TelemetryFixture;
  beforeEach(async () => (f = await telemetryFixture({ now: () => D + DAY })));
  afterEach(async () => f.cleanup());

  it('counts distinct sessions in every bucket, not a sum over rollup rows', async () => {
    const usage = await twoSessions(f);
    assert.deepEqual([usage.totals.activations, usage.totals.sessions, usage.bundleLevel.sessions], [4, 2, 0]);
    assert.deepEqual(usage.days.map((d) => [d.day, d.activations, d.sessions]), [['2026-11-30', 1, 1], ['2026-12-01', 3, 2]]);
    assert.deepEqual(usage.hosts.map((h) => [h.host, h.sessions]), [['claude-code', 2]]);
    assert.deepEqual(usage.versions.map((v) => v.sessions), [2]);
    assert.deepEqual(usage.skills.map((s) => [s.skillId, s.activations, s.sessions]), [['owner/pkg:a', 3, 2], ['owner/pkg:b', 1, 1]]);
    const skillA = await f.getJson<UsageReport>('/api/v1/telemetry/skits/owner/pkg/skills/a/usage?from=2026-11-30&to=2026-12-01', f.user('alice').pat);
    assert.deepEqual([skillA.totals.sessions, skillA.days.map((d) => d.sessions)], [2, [1, 2]]);
    assert.match(usage.note, /`sessions` counts distinct sessions \(a device and its session id\) in each bucket/);
  });

  it('counts only the sessions of the days asked for, SKIT-level activations included', async () => {
    await twoSessions(f);
    const alice = f.user('alice');
    const bundle = skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_pkg', 'agent.skill.package.id': 'owner/pkg', 'session.id': 'sess_pkg' }, D - DAY + 1000);
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest([bundle]), 'protobuf'), { auth: alice.device })).status, 200);
    await f.telemetry.drain();
    const sessions = async (q: string) => {
      const u = await f.getJson<UsageReport>(`/api/v1/telemetry/skits/owner/pkg/usage?${q}`, alice.pat);
      return [u.totals.sessions, u.bundleLevel.sessions, u.skills.map((s) => s.sessions)];
    };
    assert.deepEqual(await sessions('from=2026-11-29&to=2026-11-29'), [0, 0, []]);
    assert.deepEqual(await sessions('from=2026-11-30&to=2026-11-30'), [2, 1, [1]]);
    assert.deepEqual(await sessions('from=2026-12-01&to=2026-12-01'), [2, 0, [2, 1]]);
    assert.deepEqual(await sessions('from=2026-11-29&to=2026-12-02'), [3, 1, [2, 1]]);
  });

  it('counts distinct sessions within the account asked for, and across accounts for scope=all', async () => {
    await twoSessions(f);
    const bob = f.user('bob');
    const rec = skillRecord('agent.skill.selected', { 'agent.skill.activation.id': 'act_b', 'agent.skill.id': 'owner/pkg:a', 'session.id': 'sess_night' }, D + 1000);
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest([rec]), 'protobuf'), { auth: bob.device })).status, 200);
    await f.telemetry.drain();
    const q = 'from=2026-11-30&to=2026-12-01';
    assert.equal((await f.getJson<UsageReport>(`/api/v1/telemetry/skits/owner/pkg/usage?${q}`, bob.pat)).totals.sessions, 1);
    const admin = f.user('root', { admin: true });
    const all = await f.getJson<UsageReport>(`/api/v1/telemetry/skits/owner/pkg/usage?${q}&scope=all`, admin.pat);
    assert.deepEqual([all.totals.activations, all.totals.sessions], [5, 3]);
  });
});
