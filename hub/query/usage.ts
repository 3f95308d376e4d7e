import { ZERO_COUNTERS, type UsageCounters, type UsageRollupRow } from '../projections/rows.js';
import type { ProjectionReader } from '../storage/telemetry-ports.js';

/**
 * Per-SKIT and per-skill usage from the daily rollups. A SKIT-level activation that did not name
 * a contained skill is counted once for the SKIT (`bundleLevel`) and never spread over the
 * children: contained skills only count activations that named them.
 */

export interface UsageQuery {
  packageId: string;
  skillId?: string;
  fromDay: string;
  toDay: string;
  /** one account's usage, or every account's (admins) */
  accountId?: string;
  /** contained skills of the SKIT's latest release (listed even with zero usage) */
  containedSkills?: string[];
}

type Bucket = UsageCounters & Record<string, unknown>;

export interface UsageReport {
  packageId: string;
  skillId?: string;
  window: { from: string; to: string };
  scope: 'account' | 'all';
  totals: UsageCounters;
  /** activations of the SKIT that named no contained skill */
  bundleLevel: UsageCounters;
  skills: (UsageCounters & { skillId: string; contained: boolean })[];
  /**
   * per release: a version names a release only with its bundle hash (a git branch or a local
   * directory keeps its version, or has none, across releases); either is absent when not sent
   */
  versions: (UsageCounters & { version?: string; artifactHash?: string })[];
  hosts: (UsageCounters & { host: string })[];
  days: (UsageCounters & { day: string })[];
  note: string;
}

function add(into: UsageCounters, row: UsageCounters): void {
  for (const k of Object.keys(ZERO_COUNTERS) as (keyof UsageCounters)[]) into[k] += row[k];
}

type Dim = 'skillId' | 'version' | 'artifactHash' | 'host' | 'day';

/**
 * The rows summed per distinct value of `dims`, sorted by it. With `omitEmpty` a bucket leaves
 * out a dimension that is '' (not sent), instead of naming it "".
 */
function group<K extends Dim>(rows: UsageRollupRow[], dims: readonly K[], omitEmpty = false): (UsageCounters & Record<K, string>)[] {
  const out = new Map<string, Bucket>();
  for (const r of rows) {
    // rows of a generation written before a dimension existed lack it
    const values = dims.map((d) => r[d] ?? '');
    const key = values.join('\u0000');
    let b = out.get(key);
    if (!b) {
      out.set(key, (b = { ...ZERO_COUNTERS }));
      dims.forEach((d, i) => !(omitEmpty && values[i] === '') && (b![d] = values[i]));
    }
    add(b, r);
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, b]) => b) as (UsageCounters & Record<K, string>)[];
}

/**
 * What the answer's counts mean. `sessions` is summed like every counter, but a session is distinct
 * only within one rollup row (rollups.ts), so the note names every dimension a row is split on.
 */
export const USAGE_NOTE =
  'A SKIT-level activation is counted once (bundleLevel); a contained skill counts only activations that named it. A version is counted per release (version and bundle hash). ' +
  '`sessions` is not a count of distinct sessions: sessions (a device and its session id) are distinct per day, account, contained skill (or the SKIT itself), release, host and trigger, ' +
  'and every bucket (totals, bundleLevel, skills, versions, hosts, days) sums them, so a session that spans two of these (two skills, a midnight, two triggers ...) is counted in each.';

export function usageReport(reader: ProjectionReader, q: UsageQuery): UsageReport {
  const rows = reader.rollups(q.packageId, q.skillId, q.fromDay, q.toDay).filter((r) => q.accountId === undefined || r.accountId === q.accountId);
  const totals = { ...ZERO_COUNTERS };
  const bundleLevel = { ...ZERO_COUNTERS };
  for (const r of rows) {
    add(totals, r);
    if (r.skillId === '') add(bundleLevel, r);
  }
  const contained = new Set(q.containedSkills ?? []);
  const skills = group(rows.filter((r) => r.skillId !== ''), ['skillId']).map((s) => ({ ...s, contained: contained.has(s.skillId) }));
  if (q.skillId === undefined) {
    for (const id of contained) if (!skills.some((s) => s.skillId === id)) skills.push({ ...ZERO_COUNTERS, skillId: id, contained: true });
    skills.sort((a, b) => (a.skillId < b.skillId ? -1 : 1));
  }
  const report: UsageReport = {
    packageId: q.packageId,
    window: { from: q.fromDay, to: q.toDay },
    scope: q.accountId === undefined ? 'all' : 'account',
    totals,
    bundleLevel,
    skills,
    versions: group(rows, ['version', 'artifactHash'], true),
    hosts: group(rows, ['host']),
    days: group(rows, ['day']),
    note: USAGE_NOTE,
  };
  if (q.skillId !== undefined) report.skillId = q.skillId;
  return report;
}
