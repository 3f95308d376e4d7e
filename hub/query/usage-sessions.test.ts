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

describe('hub usage: what sessions counts', () => {
  let f: TelemetryFixture;
  beforeEach(async () => (f = await telemetryFixture({ now: () => D + DAY })));
  afterEach(async () => f.cleanup());

  it('says that bucket sessions are sums over the rollup rows, naming every dimension a row is split on', async () => {
    const usage = await twoSessions(f);
    assert.equal(usage.totals.activations, 4);
    // the sums the note describes: day D has sess_night under skill a, sess_two under a and under b
    assert.deepEqual(usage.days.map((d) => [d.day, d.sessions]), [['2026-11-30', 1], ['2026-12-01', 3]]);
    assert.equal(usage.totals.sessions, usage.days.reduce((n, d) => n + d.sessions, 0));
    assert.match(usage.note, /`sessions` is not a count of distinct sessions/);
    for (const dim of ['day', 'account', 'contained skill', 'release', 'host', 'trigger']) assert.ok(usage.note.includes(dim), `the note names ${dim}`);
    for (const bucket of ['totals', 'bundleLevel', 'skills', 'versions', 'hosts', 'days']) assert.ok(usage.note.includes(bucket), `the note names ${bucket}`);
  });
});
