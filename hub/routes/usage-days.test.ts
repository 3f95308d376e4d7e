import assert from 'node:assert/strict';
import { encodeOtlpRequest } from '../../core/telemetry/otlp/index.js';
import type { UsageReport } from '../query/usage.js';
import { logsRequest, skillRecord } from '../test-support/otlp-builders.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';

const DAY = 86_400_000;
const D = Date.UTC(2026, 11, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Usage is counted per UTC day: a window bound that is a time must be a midnight (anything else
 * would count activations outside the window), and a midnight `to` is exclusive.
 */
describe('hub telemetry usage: the days a window reads', () => {
  let f: TelemetryFixture;
  let alice: TelemetryUser;
  const usage = '/api/v1/telemetry/skits/owner/pkg/usage';
  before(async () => {
    f = await telemetryFixture({ now: () => D + 2 * DAY });
    alice = f.user('alice');
    // one activation at 01:00Z on day D-1, one at 01:00Z on day D
    const records = [D - DAY, D].map((day, i) => skillRecord('agent.skill.selected', { 'agent.skill.activation.id': `act_${i}`, 'agent.skill.id': 'owner/pkg:plain' }, day + 3_600_000));
    assert.equal((await f.post('logs', await encodeOtlpRequest(logsRequest(records), 'protobuf'), { auth: alice.device })).status, 200);
    await f.telemetry.drain();
  });
  after(async () => f.cleanup());

  const read = async (q: string) => {
    const res = await f.app.request(`${usage}?${q}`, { headers: alice.pat });
    return { status: res.status, body: (await res.json()) as UsageReport & { error?: { code: string; message: string; hint?: string } } };
  };
  const counted = async (q: string) => {
    const { status, body } = await read(q);
    assert.equal(status, 200, `${q}: ${JSON.stringify(body)}`);
    return { activations: body.totals.activations, window: body.window };
  };

  it('refuses a bound that is a time other than midnight UTC, naming it (400 SF_E_USAGE)', async () => {
    for (const q of [`from=${iso(D + 60_000)}&to=${iso(D + 120_000)}`, `to=${iso(D - 1)}`, `from=${iso(D + 1)}`, `from=${D + 3_600_000}`, 'to=2026-12-01T00:00:00%2B01:00', 'to=2016-12-31T23:59:60Z']) {
      const { status, body } = await read(q);
      assert.equal(status, 400, q);
      assert.equal(body.error?.code, 'SF_E_USAGE', q);
      assert.match(body.error?.message ?? '', /^(from|to)=\S+ is not at midnight UTC, and usage is counted by UTC day: give dates \(YYYY-MM-DD\) or midnight times$/, q);
      assert.ok(body.error?.hint, q);
    }
    // the timeline and evidence routes keep precise bounds
    const evidence = await f.app.request(`/api/v1/telemetry/skits/owner/pkg/skills/plain/evidence?from=${iso(D + 60_000)}&to=${iso(D + 120_000)}`, { headers: alice.pat });
    assert.equal(evidence.status, 200);
  });

  it('reads a midnight to as exclusive (half-open), a date-only to as its whole day', async () => {
    assert.deepEqual(await counted(`from=${iso(D - DAY)}&to=${iso(D)}`), { activations: 1, window: { from: '2026-11-30', to: '2026-11-30' } });
    assert.deepEqual(await counted(`from=${D - DAY}&to=${D}`), { activations: 1, window: { from: '2026-11-30', to: '2026-11-30' } });
    assert.deepEqual(await counted(`from=${iso(D)}&to=${iso(D + DAY)}`), { activations: 1, window: { from: '2026-12-01', to: '2026-12-01' } });
    assert.deepEqual(await counted('from=2026-11-30&to=2026-12-01'), { activations: 2, window: { from: '2026-11-30', to: '2026-12-01' } });
    assert.deepEqual(await counted('from=2026-12-01&to=2026-12-01'), { activations: 1, window: { from: '2026-12-01', to: '2026-12-01' } });
    // a midnight in another zone is a UTC midnight too
    assert.deepEqual(await counted('from=2026-12-01T01:00:00%2B01:00&to=2026-12-02T01:00:00%2B01:00'), { activations: 1, window: { from: '2026-12-01', to: '2026-12-01' } });
    // without from: the 30 days before the (exclusive) to
    assert.deepEqual((await counted(`to=${iso(D)}`)).window, { from: '2026-11-01', to: '2026-11-30' });
  });

  it('refuses a window a midnight to leaves empty', async () => {
    const { status, body } = await read(`from=${iso(D)}&to=${iso(D)}`);
    assert.equal(status, 400);
    assert.equal(body.error?.code, 'SF_E_USAGE');
    assert.match(body.error?.message ?? '', /a midnight to is exclusive/);
  });
});
