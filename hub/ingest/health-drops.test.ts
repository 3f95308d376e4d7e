import assert from 'node:assert/strict';
import type { HealthReport } from '../query/health.js';
import { telemetryFixture, type TelemetryFixture, type TelemetryUser } from '../test-support/telemetry-fixture.js';
import { addCumulativeDrops, healthKey } from './health.js';

const s = (key: string, value: string) => ({ key, value: { stringValue: value } });
const NOW_NS = BigInt(Date.UTC(2026, 7, 9, 12)) * 1_000_000n;

/** An OTLP/JSON metrics export of agent.skill.telemetry.dropped.count from one process. */
function drops(points: { start?: bigint; value: number; reason?: string }[], temporality: 1 | 2 = 2) {
  return {
    resourceMetrics: [{
      resource: { attributes: [s('service.name', 'my-collector'), s('service.instance.id', 'inst_fixed')] },
      scopeMetrics: [{ scope: { name: 'x' }, metrics: [{ name: 'agent.skill.telemetry.dropped.count', sum: { aggregationTemporality: temporality, isMonotonic: true, dataPoints: points.map((p, i) => ({
        ...(p.start !== undefined ? { startTimeUnixNano: `${p.start}` } : {}),
        timeUnixNano: `${NOW_NS + BigInt(i)}`,
        asInt: `${p.value}`,
        attributes: p.reason ? [s('agent.adapter.name', p.reason)] : [],
      })) } }] }],
    }],
  };
}

describe('hub health: client-reported drops (agent.skill.telemetry.dropped.count)', () => {
  let f: TelemetryFixture;
  let alice: TelemetryUser;
  beforeEach(async () => {
    f = await telemetryFixture();
    alice = f.user('alice');
  });
  afterEach(async () => f.cleanup());

  const send = async (body: object) => assert.equal((await f.post('metrics', body, { auth: alice.device })).status, 200);
  const dropped = async () => (await f.getJson<HealthReport>('/api/v1/telemetry/health', alice.pat)).summary.clientDropped;
  const S1 = NOW_NS - 600_000_000_000n;
  const S2 = NOW_NS - 60_000_000_000n;

  it('counts every drop of a cumulative Sum across an exporter restart (a new start time is a reset)', async () => {
    await send(drops([{ start: S1, value: 100 }]));
    assert.equal(await dropped(), 100);
    await send(drops([{ start: S2, value: 30 }])); // restarted at S2: 30 since
    assert.equal(await dropped(), 130);
    await send(drops([{ start: S2, value: 60 }])); // 30 more
    assert.equal(await dropped(), 160);
    await send(drops([{ start: S2, value: 60 }])); // nothing new
    assert.equal(await dropped(), 160);
    await send(drops([{ start: S1, value: 120 }])); // the earlier run's, delivered late: not a restart
    assert.equal(await dropped(), 160);
  });

  it('does not count twice what a row written before series were kept already holds', async () => {
    await send(drops([{ start: S1, value: 100 }]));
    const health = f.storage.telemetry.health;
    const [row] = health.list(alice.id);
    const { clientDroppedSeries: _, ...legacy } = row as typeof row & { clientDroppedSeries?: unknown };
    health.put(healthKey(row.deviceId, { serviceName: row.serviceName, serviceInstanceId: row.serviceInstanceId }), legacy);
    assert.equal(health.list(alice.id).length, 1);
    await send(drops([{ start: S1, value: 120 }])); // the old rule once: the highest total
    assert.equal(await dropped(), 120);
    await send(drops([{ start: S2, value: 7 }]));
    assert.equal(await dropped(), 127);
  });

  it('keeps each series (attribute set) of a cumulative Sum apart, and keeps adding delta points', async () => {
    await send(drops([{ start: S1, value: 10, reason: 'a' }, { start: S1, value: 5, reason: 'b' }]));
    await send(drops([{ start: S1, value: 12, reason: 'a' }, { start: S2, value: 1, reason: 'c' }]));
    assert.equal(await dropped(), 18);
    await send(drops([{ value: 4 }, { value: 3, reason: 'a' }], 1));
    await send(drops([{ value: 4 }], 1));
    assert.equal(await dropped(), 29);
  });
});

describe('hub health: addCumulativeDrops', () => {
  const p = (series: string, start: string, value: number) => ({ series, start, value });
  it('adds the difference within a run, the whole value on a new start time or series', () => {
    let state = addCumulativeDrops([], [p('x', '10', 7)]);
    assert.equal(state.added, 7);
    state = addCumulativeDrops(state.series, [p('x', '10', 9), p('y', '10', 2)]);
    assert.equal(state.added, 4);
    state = addCumulativeDrops(state.series, [p('x', '20', 1)]);
    assert.deepEqual([state.added, state.series], [1, [p('y', '10', 2), p('x', '20', 1)]]);
  });
  it('adds nothing for a late point, and without a start time reads a lower value as a restart', () => {
    const late = addCumulativeDrops([p('x', '20', 5)], [p('x', '20', 3), p('x', '10', 50)]);
    assert.deepEqual([late.added, late.series], [0, [p('x', '20', 5)]]);
    assert.equal(addCumulativeDrops([p('x', '0', 5)], [p('x', '0', 2)]).added, 2);
  });
  it('remembers at most 32 series, forgetting the least recently updated', () => {
    const many = Array.from({ length: 40 }, (_, i) => p(`s${i}`, '1', 1));
    const { added, series } = addCumulativeDrops([], many);
    assert.equal(added, 40);
    assert.deepEqual(series.map((x) => x.series), many.slice(8).map((x) => x.series));
  });
});
