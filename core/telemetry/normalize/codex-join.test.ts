import assert from 'node:assert/strict';
import { CAPTURE_PROJECT, captureLibrary, captureRequest, fakeContext } from '../../../test-support/telemetry.js';
import type { OtlpLogRecord, OtlpLogsRequest, OtlpMetricsRequest } from '../otlp/types.js';
import { CODEX_CLAIM_HOLD_SECONDS } from './codex.js';
import { createNormalizer, type NormalizedOutput, type SessionInfo } from './index.js';

/** Codex's skill.injected metric names a skill, not a conversation: how sure its join is. */
describe('Codex load results from the skill.injected metric', () => {
  const session = (): SessionInfo => ({ cwd: `/${CAPTURE_PROJECT}`, repositoryResolved: true, fingerprints: {} });
  const convB = '01a22a79-0000-7811-a6d8-d7a6749bb675';
  const convC = '01a22a79-1111-7811-a6d8-d7a6749bb675';
  const SECOND = 1_000_000_000n;

  /** The codex-explicit capture: its invocation log record (with its resource and scope) and its metrics. */
  async function capture() {
    const logs = (await captureRequest('codex-explicit', 'logs')) as OtlpLogsRequest;
    const metrics = (await captureRequest('codex-explicit', 'metrics')) as OtlpMetricsRequest;
    const isInvocation = (i: OtlpLogRecord) => (i.attributes['event.name'] ?? i.eventName) === 'codex.skill_invocation';
    const resource = logs.resources.find((r) => r.scopes.some((s) => s.items.some(isInvocation)))!;
    const scope = resource.scopes.find((s) => s.items.some(isInvocation))!;
    const invocation = scope.items.find(isInvocation)!;
    /** the invocation as conversation `conv` made it, `shiftNs` later */
    const selection = (conv: string, tag: string, shiftNs = 1000n): OtlpLogRecord => ({
      ...invocation, spanId: tag.repeat(16), traceId: 'ab'.repeat(16), timeUnixNano: (BigInt(invocation.attributes['event.timestamp'] ? Date.parse(String(invocation.attributes['event.timestamp'])) : 0) * 1_000_000n + shiftNs).toString(),
      attributes: { ...invocation.attributes, 'conversation.id': conv, 'turn.id': `turn-${tag}` },
    });
    const logsOf = (...items: OtlpLogRecord[]): OtlpLogsRequest => ({ signal: 'logs', resources: [{ ...resource, scopes: [{ ...scope, items }] }] } as OtlpLogsRequest);
    /** the metrics with every point `shiftNs` later */
    const metricsAt = (shiftNs: bigint): OtlpMetricsRequest => ({
      ...metrics,
      resources: metrics.resources.map((r) => ({ ...r, scopes: r.scopes.map((s) => ({ ...s, items: s.items.map((m) => m.data.kind !== 'sum' ? m : ({
        ...m, data: { ...m.data, dataPoints: m.data.dataPoints.map((p) => ({ ...p, startTimeUnixNano: p.startTimeUnixNano ? (BigInt(p.startTimeUnixNano) + shiftNs).toString() : p.startTimeUnixNano, timeUnixNano: (BigInt(p.timeUnixNano) + shiftNs).toString() })) },
      })) })) })),
    } as OtlpMetricsRequest);
    return { convA: String(invocation.attributes['conversation.id']), selection, logsOf, metrics, metricsAt };
  }

  type Step = { logs: OtlpLogsRequest } | { metrics: OtlpMetricsRequest } | { wait: bigint };

  /** Runs the steps through one normalizer (then lets every hold run out): `<conversation> <event> <fidelity>` of every load result. */
  async function run(steps: Step[], convs: readonly string[]): Promise<string[]> {
    const ctx = fakeContext(captureLibrary(), Object.fromEntries(convs.map((c) => [c, session()])));
    const n = createNormalizer(ctx);
    const out: NormalizedOutput['events'] = [];
    for (const step of steps) {
      if ('logs' in step) out.push(...n.logs(step.logs).events);
      else if ('metrics' in step) out.push(...n.metrics(step.metrics).events);
      else {
        ctx.clock.t += step.wait;
        out.push(...n.expire().events);
      }
    }
    ctx.clock.t += BigInt(CODEX_CLAIM_HOLD_SECONDS) * SECOND;
    out.push(...n.expire().events);
    const label = (c: unknown) => String.fromCharCode(65 + convs.indexOf(String(c)));
    return out.filter((e) => e.event_name === 'agent.skill.loaded' || e.event_name === 'agent.skill.load_failed')
      .map((e) => `${label(e.attributes['session.id' as never])} ${e.event_name} ${String(e.attributes['agent.skill.evidence.fidelity' as never])}`);
  }

  it('is derived when one open activation of the skill could have been injected, in either order', async () => {
    const c = await capture();
    const sel = c.selection(c.convA, 'a');
    assert.deepEqual(await run([{ logs: c.logsOf(sel) }, { metrics: c.metrics }], [c.convA]), ['A agent.skill.loaded derived']);
    assert.deepEqual(await run([{ metrics: c.metrics }, { logs: c.logsOf(sel) }], [c.convA]), ['A agent.skill.loaded derived']);
  });

  it('is inferred when selections in two conversations could own the one injection, whatever arrives first', async () => {
    const c = await capture();
    const [a, b] = [c.selection(c.convA, 'a'), c.selection(convB, 'b', 2000n)];
    const convs = [c.convA, convB];
    const orders: Step[][] = [
      [{ logs: c.logsOf(a, b) }, { metrics: c.metrics }],
      [{ logs: c.logsOf(a) }, { logs: c.logsOf(b) }, { metrics: c.metrics }],
      [{ metrics: c.metrics }, { logs: c.logsOf(a) }, { logs: c.logsOf(b) }],
      [{ metrics: c.metrics }, { logs: c.logsOf(b) }, { logs: c.logsOf(a) }],
      [{ logs: c.logsOf(a) }, { metrics: c.metrics }, { logs: c.logsOf(b) }],
      [{ logs: c.logsOf(b) }, { metrics: c.metrics }, { wait: 5n * SECOND }, { logs: c.logsOf(a) }],
    ];
    // one injection: one load result, a guess said to be one, given to the same (oldest) selection every time
    for (const steps of orders) assert.deepEqual(await run(steps, convs), ['A agent.skill.loaded inferred']);
  });

  it('never gives a waiting credit to a selection made after the injection it counted', async () => {
    const c = await capture();
    // the metric counts an injection whose selection log never came; a later conversation selects the skill 10 minutes on
    const later = c.selection(convC, 'c', 600n * SECOND);
    assert.deepEqual(await run([{ metrics: c.metrics }, { wait: 600n * SECOND }, { logs: c.logsOf(later) }], [convC]), []);
    // its own injection, counted later, is its own load result, unambiguous
    assert.deepEqual(await run([{ metrics: c.metrics }, { logs: c.logsOf(later) }, { metrics: c.metricsAt(600n * SECOND) }], [convC]), ['A agent.skill.loaded derived']);
  });

  it('never lets a selection left without an injection take a later conversation\'s', async () => {
    const c = await capture();
    const [a, b, later] = [c.selection(c.convA, 'a'), c.selection(convB, 'b', 2000n), c.selection(convC, 'c', 600n * SECOND)];
    const out = await run([{ logs: c.logsOf(a, b) }, { metrics: c.metrics }, { wait: 600n * SECOND }, { logs: c.logsOf(later) }, { metrics: c.metricsAt(600n * SECOND) }], [c.convA, convB, convC]);
    // B stays without a load result; C's injection is C's
    assert.deepEqual(out, ['A agent.skill.loaded inferred', 'C agent.skill.loaded derived']);
  });
});
