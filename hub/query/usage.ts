import { ZERO_COUNTERS, type UsageCounters, type UsageRollupRow } from '../projections/rows.js';
import type { ProjectionReader, RollupSession } from '../storage/telemetry-ports.js';

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
 * The rows summed per distinct value of `dims`, sorted by it; a bucket's `sessions` is its count in
 * `sessions` (distinct, keyed by the dims' values joined by NUL), not a sum: a session in two rows
 * would count twice. With `omitEmpty` a bucket leaves out a dimension that is '' (not sent),
 * instead of naming it "".
 */
function group<K extends Dim>(rows: UsageRollupRow[], dims: readonly K[], sessions: ReadonlyMap<string, number>, omitEmpty = false): (UsageCounters & Record<K, string>)[] {
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
  for (const [key, b] of out) b.sessions = sessions.get(key) ?? 0;
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, b]) => b) as (UsageCounters & Record<K, string>)[];
}

/** Distinct sessions (device and session id) per bucket of the report, keyed as `group` keys its buckets. */
interface SessionCounts {
  totals: number;
  bundleLevel: number;
  skills: Map<string, number>;
  versions: Map<string, number>;
  hosts: Map<string, number>;
  days: Map<string, number>;
}

/** One pass over the sessions of the rollup rows read (usage rows hold thousands of them a day). */
function sessionCounts(sessions: Iterable<RollupSession>, keep: (s: RollupSession) => boolean): SessionCounts {
  const totals = new Set<string>();
  const bundleLevel = new Set<string>();
  const [skills, versions, hosts, days] = [new Map<string, Set<string>>(), new Map<string, Set<string>>(), new Map<string, Set<string>>(), new Map<string, Set<string>>()];
  const put = (m: Map<string, Set<string>>, key: string, session: string) => {
    const set = m.get(key);
    if (set) set.add(session);
    else m.set(key, new Set([session]));
  };
  for (const s of sessions) {
    if (!keep(s)) continue;
    totals.add(s.session);
    if (s.skillId === '') bundleLevel.add(s.session);
    else put(skills, s.skillId, s.session);
    put(versions, `${s.version}\u0000${s.artifactHash}`, s.session);
    put(hosts, s.host, s.session);
    put(days, s.day, s.session);
  }
  const sizes = (m: Map<string, Set<string>>) => new Map([...m].map(([k, set]) => [k, set.size]));
  return { totals: totals.size, bundleLevel: bundleLevel.size, skills: sizes(skills), versions: sizes(versions), hosts: sizes(hosts), days: sizes(days) };
}

/** What the answer's counts mean. */
export const USAGE_NOTE =
  'A SKIT-level activation is counted once (bundleLevel); a contained skill counts only activations that named it. A version is counted per release (version and bundle hash). ' +
  '`sessions` counts distinct sessions (a device and its session id) in each bucket: a session that spans two skills, a midnight, two releases, hosts or triggers is one session of the totals.';

export function usageReport(reader: ProjectionReader, q: UsageQuery): UsageReport {
  const ours = (r: { accountId: string }) => q.accountId === undefined || r.accountId === q.accountId;
  const rows = reader.rollups(q.packageId, q.skillId, q.fromDay, q.toDay).filter(ours);
  const sessions = sessionCounts(reader.rollupSessions(q.packageId, q.skillId, q.fromDay, q.toDay), ours);
  const totals = { ...ZERO_COUNTERS };
  const bundleLevel = { ...ZERO_COUNTERS };
  for (const r of rows) {
    add(totals, r);
    if (r.skillId === '') add(bundleLevel, r);
  }
  totals.sessions = sessions.totals;
  bundleLevel.sessions = sessions.bundleLevel;
  const contained = new Set(q.containedSkills ?? []);
  const skills = group(rows.filter((r) => r.skillId !== ''), ['skillId'], sessions.skills).map((s) => ({ ...s, contained: contained.has(s.skillId) }));
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
    versions: group(rows, ['version', 'artifactHash'], sessions.versions, true),
    hosts: group(rows, ['host'], sessions.hosts),
    days: group(rows, ['day'], sessions.days),
    note: USAGE_NOTE,
  };
  if (q.skillId !== undefined) report.skillId = q.skillId;
  return report;
}
