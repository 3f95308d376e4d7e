import { METRICS, SEMCONV_SCHEMA_URL, type MetricDefinition, type MetricName } from '../../schemas/generated/semconv.js';
import { attributeProblem } from './attributes.js';
import type { OtlpMetric, OtlpMetricsRequest, OtlpValue } from './otlp/types.js';

/**
 * The five client metrics. Only bounded-cardinality dimensions listed in the registry
 * (METRICS[name].dimensions) ever reach a series: any other attribute — skill, release,
 * repository, session or activation identity — is dropped when recorded, and so is a value
 * outside the attribute's vocabulary. Series per metric are capped; past the cap a sample is
 * recorded without dimensions. Cumulative temporality.
 */

const defs = METRICS as unknown as Readonly<Record<string, MetricDefinition>>;

/** Seconds buckets of agent.skill.activation.duration. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

const FREE_STRING = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

interface Series {
  attributes: Record<string, string>;
  value: number;
  count: number;
  buckets: number[];
  min: number;
  max: number;
}

export interface RecordOutcome {
  /** attribute keys that were not allowed as dimensions of this metric */
  droppedKeys: string[];
}

export class ClientMetrics {
  private readonly series = new Map<string, Map<string, Series>>();
  /** how many attribute keys were refused as dimensions so far */
  droppedDimensions = 0;

  constructor(private readonly startNanos: string, private readonly maxSeriesPerMetric = 256) {}

  /** Records one sample of a client metric (a counter increment or a histogram observation). */
  record(name: MetricName, value: number, attributes: Readonly<Record<string, unknown>>): RecordOutcome {
    const def = defs[name];
    const dims = new Set<string>(def.dimensions);
    const kept: Record<string, string> = {};
    const droppedKeys: string[] = [];
    for (const [k, v] of Object.entries(attributes)) {
      if (v === undefined) continue;
      if (!dims.has(k) || typeof v !== 'string' || attributeProblem(k, v) || !FREE_STRING.test(v)) {
        droppedKeys.push(k);
        continue;
      }
      kept[k] = v;
    }
    this.droppedDimensions += droppedKeys.length;
    let byKey = this.series.get(name);
    if (!byKey) this.series.set(name, (byKey = new Map()));
    let key = JSON.stringify(Object.keys(kept).sort().map((k) => [k, kept[k]]));
    if (!byKey.has(key) && byKey.size >= this.maxSeriesPerMetric) key = '[]';
    let s = byKey.get(key);
    if (!s) byKey.set(key, (s = { attributes: key === '[]' ? {} : kept, value: 0, count: 0, buckets: new Array(DURATION_BUCKETS.length + 1).fill(0), min: Infinity, max: -Infinity }));
    s.value += value;
    s.count += 1;
    if (def.instrument === 'histogram') {
      const i = DURATION_BUCKETS.findIndex((b) => value <= b);
      s.buckets[i === -1 ? DURATION_BUCKETS.length : i]++;
      s.min = Math.min(s.min, value);
      s.max = Math.max(s.max, value);
    }
    return { droppedKeys };
  }

  /** True when nothing has been recorded yet. */
  get empty(): boolean {
    return this.series.size === 0;
  }

  /**
   * The cumulative state of every metric as one OTLP metrics request (undefined when empty), under
   * the semantic convention's schema URL like the exported logs and spans.
   */
  collect(nowNanos: string, resource: Record<string, OtlpValue>, scope: { name: string; version?: string }): OtlpMetricsRequest | undefined {
    if (this.empty) return undefined;
    const metrics: OtlpMetric[] = [];
    for (const [name, byKey] of [...this.series.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const def = defs[name];
      const points = [...byKey.values()];
      if (def.instrument === 'histogram') {
        metrics.push({
          name, unit: def.unit, description: def.brief,
          data: {
            kind: 'histogram', aggregationTemporality: 2,
            dataPoints: points.map((s) => ({ attributes: { ...s.attributes }, startTimeUnixNano: this.startNanos, timeUnixNano: nowNanos, count: s.count, sum: s.value, bucketCounts: [...s.buckets], explicitBounds: [...DURATION_BUCKETS], min: s.min, max: s.max })),
          },
        });
      } else {
        metrics.push({
          name, unit: def.unit, description: def.brief,
          data: { kind: 'sum', aggregationTemporality: 2, isMonotonic: true, dataPoints: points.map((s) => ({ attributes: { ...s.attributes }, startTimeUnixNano: this.startNanos, timeUnixNano: nowNanos, asInt: s.value })) },
        });
      }
    }
    return { signal: 'metrics', resources: [{ resource: { attributes: resource }, scopes: [{ scope, schemaUrl: SEMCONV_SCHEMA_URL, items: metrics }] }] };
  }
}
