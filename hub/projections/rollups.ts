import type { ProjectionWriter } from '../storage/telemetry-ports.js';
import { dayOf } from '../normalize/values.js';
import type { ActivationSnapshot } from './activations.js';
import { ZERO_COUNTERS, type FeedbackKind, type ObservationEventRow, type SkillActivationRow, type UsageCounters, type UsageRollupRow } from './rows.js';

type Dims = Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'artifactHash' | 'host' | 'triggerType'>;

interface Share {
  dims: Dims;
  key: string;
  counters: Pick<UsageCounters, 'activations' | 'explicit' | 'implicit' | 'loaded' | 'truncated' | 'loadFailed' | 'exact' | 'derived' | 'inferred' | 'unknownFidelity'>;
}

const dimsKey = (d: Dims) => `${d.day}\u0000${d.accountId}\u0000${d.packageId}\u0000${d.skillId}\u0000${d.version}\u0000${d.artifactHash}\u0000${d.host}\u0000${d.triggerType}`;

/** What one activation adds to the rollups, as a function of its row. */
function shareOf(a: ActivationSnapshot): Share {
  const dims: Dims = {
    day: dayOf(a.firstSeen),
    accountId: a.accountId,
    packageId: a.packageId ?? '',
    skillId: a.skillId ?? '',
    version: a.artifactVersion ?? '',
    artifactHash: a.artifactHash ?? '',
    host: a.hostName ?? a.serviceName ?? '',
    triggerType: a.triggerType ?? '',
  };
  return {
    dims,
    key: dimsKey(dims),
    counters: {
      activations: 1,
      explicit: a.triggerType === 'explicit' ? 1 : 0,
      implicit: a.triggerType === 'implicit' ? 1 : 0,
      loaded: a.loadedAt ? 1 : 0,
      truncated: a.truncated && a.loadedAt ? 1 : 0,
      loadFailed: a.loadFailedAt ? 1 : 0,
      exact: a.evidenceFidelity === 'exact' ? 1 : 0,
      derived: a.evidenceFidelity === 'derived' ? 1 : 0,
      inferred: a.evidenceFidelity === 'inferred' ? 1 : 0,
      unknownFidelity: a.evidenceFidelity === 'exact' || a.evidenceFidelity === 'derived' || a.evidenceFidelity === 'inferred' ? 0 : 1,
    },
  };
}

/**
 * The key a rollup row counts a session under: session ids come from the device's agent, so the
 * same id on two devices is two sessions (as the same activation id is two activations).
 */
const sessionKey = (r: { deviceId: string; sessionId?: string }): string | undefined => (r.sessionId === undefined ? undefined : `${r.deviceId}\u0000${r.sessionId}`);

/** One more or one fewer activation of a session in a rollup row; how many there are now. */
function countSession(w: ProjectionWriter, dims: Dims, session: string, delta: 1 | -1): number {
  const n = Math.max(0, w.rollupSessionCount(dims, session) + delta);
  w.setRollupSessionCount(dims, session, n);
  return n;
}

const sameCounters = (a: Share['counters'], b: Share['counters']) =>
  a.explicit === b.explicit && a.implicit === b.implicit && a.loaded === b.loaded && a.truncated === b.truncated && a.loadFailed === b.loadFailed &&
  a.exact === b.exact && a.derived === b.derived && a.inferred === b.inferred;

/** Nothing the rollups read changed between the two rows (most events of an activation): no shares to compute. */
const sameForRollups = (a: ActivationSnapshot, b: SkillActivationRow): boolean =>
  a.firstSeen === b.firstSeen && a.accountId === b.accountId && a.packageId === b.packageId && a.skillId === b.skillId && a.artifactVersion === b.artifactVersion && a.artifactHash === b.artifactHash &&
  a.hostName === b.hostName && a.serviceName === b.serviceName && a.triggerType === b.triggerType && a.sessionId === b.sessionId &&
  !a.loadedAt === !b.loadedAt && !a.loadFailedAt === !b.loadFailedAt && !a.truncated === !b.instructions?.truncated && a.evidenceFidelity === b.evidenceFidelity;

/**
 * usage_rollups: daily counters per account, SKIT, contained skill, release (version and bundle
 * hash), host and trigger.
 * An activation's share moves with its row (see `activation`), so replaying an event cannot count
 * twice (dedupe already stops it reaching here) and the order events arrive in does not matter.
 * Deltas are collected per batch and merged into the stored rows once at the end of the batch.
 */
export class RollupAccumulator {
  private readonly deltas = new Map<string, { dims: Dims; counters: UsageCounters }>();

  constructor(private readonly normalizerVersion: string) {}

  /** The counters of a rollup row in this batch (its key is built once per event, not once per counter). */
  private counters(dims: Dims, key = dimsKey(dims)): UsageCounters {
    let d = this.deltas.get(key);
    if (!d) this.deltas.set(key, (d = { dims, counters: { ...ZERO_COUNTERS } }));
    return d.counters;
  }

  /**
   * Moves an activation's share of the rollups from what the row was (`prev`) to what it is now:
   * its share is a function of the row alone (its day, skill, version, host and trigger, and
   * whether it loaded, was truncated or failed), and the row is the same whichever event arrives
   * first, so the rollups are too (a load result before its selection no longer leaves the trigger
   * and the day of the load result behind). Distinct sessions (device and session id) are counted
   * once per rollup row when an activation first lands in it.
   */
  activation(w: ProjectionWriter, prev: ActivationSnapshot | undefined, next: SkillActivationRow): void {
    if (prev && sameForRollups(prev, next)) return;
    const before = prev ? shareOf(prev) : undefined;
    const after = shareOf({ ...next, truncated: next.instructions?.truncated });
    if (before && before.key === after.key && sameCounters(before.counters, after.counters)) return;
    if (before) this.move(before, -1);
    this.move(after, 1);
    const [was, is] = [prev && sessionKey(prev), sessionKey(next)];
    if (before?.key === after.key && was === is) return;
    if (before && was && countSession(w, before.dims, was, -1) === 0) this.counters(before.dims, before.key).sessions--;
    if (is && countSession(w, after.dims, is, 1) === 1) this.counters(after.dims, after.key).sessions++;
  }

  private move(share: Share, sign: 1 | -1): void {
    const c = this.counters(share.dims, share.key);
    const d = share.counters;
    c.activations += sign * d.activations;
    c.explicit += sign * d.explicit;
    c.implicit += sign * d.implicit;
    c.loaded += sign * d.loaded;
    c.truncated += sign * d.truncated;
    c.loadFailed += sign * d.loadFailed;
    c.exact += sign * d.exact;
    c.derived += sign * d.derived;
    c.inferred += sign * d.inferred;
    c.unknownFidelity += sign * d.unknownFidelity;
  }

  /** Counts a feedback/incident fact under the skill it names (or its activation's skill). */
  feedback(e: ObservationEventRow, kind: FeedbackKind, activation: SkillActivationRow | undefined): void {
    this.countFeedback(e, kind, feedbackDims(e, activation), 1);
  }

  /**
   * Moves a feedback fact counted before its activation row existed (or while the row named
   * another skill, version or host) to where the row puts it now: feedback may arrive first, and
   * the rollups must not depend on that order.
   */
  moveFeedback(e: ObservationEventRow, kind: FeedbackKind, prev: SkillActivationRow | undefined, next: SkillActivationRow): void {
    const [from, to] = [feedbackDims(e, prev), feedbackDims(e, next)];
    if (dimsKey(from) === dimsKey(to)) return;
    this.countFeedback(e, kind, from, -1);
    this.countFeedback(e, kind, to, 1);
  }

  private countFeedback(e: ObservationEventRow, kind: FeedbackKind, dims: Dims, sign: 1 | -1): void {
    const type = (e.attributes['agent.user.intervention.type'] as string | undefined) ?? '';
    if (kind === 'intervention') {
      // a disable_skill/uninstall_skill intervention is the user's report of what an inventory
      // event observes on disk: it counts as an intervention, so the same act is not counted twice
      const c = this.counters(dims);
      c.interventions += sign;
      if (type === 'negative_feedback') c.negativeFeedback += sign;
    } else if (kind === 'feedback') {
      if (e.attributes['agent.skill.feedback.sentiment'] === 'negative') this.counters(dims).negativeFeedback += sign;
    } else if (kind === 'incident') this.counters(dims).incidents += sign;
    else if (kind === 'disable') this.counters(dims).disables += sign;
    else if (kind === 'uninstall') this.counters(dims).uninstalls += sign;
  }

  /** Merges the batch's deltas into the stored rows (inside the batch's transaction). */
  flush(w: ProjectionWriter): void {
    for (const { dims, counters } of this.deltas.values()) {
      const prev = w.getRollup(dims);
      const row: UsageRollupRow = { ...ZERO_COUNTERS, ...prev, ...dims, normalizerVersion: this.normalizerVersion };
      for (const k of Object.keys(counters) as (keyof UsageCounters)[]) row[k] += counters[k];
      w.putRollup(row);
    }
    this.deltas.clear();
  }
}

/**
 * The rollup row a feedback fact counts in: its own skill fields, else its activation's. The
 * release (version and bundle hash) comes whole from one of the two, never a version of one with
 * the hash of the other.
 */
export function feedbackDims(e: ObservationEventRow, activation: SkillActivationRow | undefined): Dims {
  const release = e.artifactVersion !== undefined || e.artifactHash !== undefined ? e : activation;
  return {
    day: dayOf(e.time),
    accountId: e.accountId,
    packageId: e.packageId ?? activation?.packageId ?? '',
    skillId: e.skillId ?? activation?.skillId ?? '',
    version: release?.artifactVersion ?? '',
    artifactHash: release?.artifactHash ?? '',
    host: e.hostName ?? e.serviceName ?? activation?.hostName ?? '',
    triggerType: '',
  };
}
