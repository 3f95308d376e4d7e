import type { ProjectionWriter } from '../storage/telemetry-ports.js';
import { dayOf } from '../normalize/values.js';
import type { ActivationSnapshot } from './activations.js';
import { ZERO_COUNTERS, type FeedbackKind, type ObservationEventRow, type SkillActivationRow, type UsageCounters, type UsageRollupRow } from './rows.js';

type Dims = Pick<UsageRollupRow, 'day' | 'accountId' | 'packageId' | 'skillId' | 'version' | 'host' | 'triggerType'>;

/**
 * usage_rollups: daily counters per account, SKIT, contained skill, version, host and trigger.
 * Counts move on transitions (a new activation, its first load, its first failure), so replaying
 * an event cannot count twice (dedupe already stops it reaching here). Deltas are collected per
 * batch and merged into the stored rows once at the end of the batch.
 */
export class RollupAccumulator {
  private readonly deltas = new Map<string, { dims: Dims; counters: UsageCounters }>();

  constructor(private readonly normalizerVersion: string) {}

  /** The counters of a rollup row in this batch (its key is built once per event, not once per counter). */
  private counters(dims: Dims): UsageCounters {
    const key = `${dims.day}\u0000${dims.accountId}\u0000${dims.packageId}\u0000${dims.skillId}\u0000${dims.version}\u0000${dims.host}\u0000${dims.triggerType}`;
    let d = this.deltas.get(key);
    if (!d) this.deltas.set(key, (d = { dims, counters: { ...ZERO_COUNTERS } }));
    return d.counters;
  }

  /** Counts what the event changed about an activation (`prev` is the row as it was before the event). */
  activation(w: ProjectionWriter, prev: ActivationSnapshot | undefined, next: SkillActivationRow): void {
    const base = prev ?? next;
    const dims: Dims = {
      day: dayOf(base.firstSeen),
      accountId: base.accountId,
      packageId: base.packageId ?? '',
      skillId: base.skillId ?? '',
      version: base.artifactVersion ?? '',
      host: base.hostName ?? base.serviceName ?? '',
      triggerType: base.triggerType ?? '',
    };
    const newLoad = !prev?.loadedAt && next.loadedAt;
    const newTruncation = !(prev?.truncated && prev.loadedAt) && next.instructions?.truncated && next.loadedAt;
    const newFailure = !prev?.loadFailedAt && next.loadFailedAt;
    if (prev && !newLoad && !newTruncation && !newFailure) return;
    const c = this.counters(dims);
    if (!prev) {
      c.activations++;
      if (next.triggerType === 'explicit') c.explicit++;
      if (next.triggerType === 'implicit') c.implicit++;
      if (next.sessionId && w.markRollupSession(dims, next.sessionId)) c.sessions++;
    }
    if (newLoad) c.loaded++;
    if (newTruncation) c.truncated++;
    if (newFailure) c.loadFailed++;
  }

  /** Counts a feedback/incident fact under the skill it names (or its activation's skill). */
  feedback(e: ObservationEventRow, kind: FeedbackKind, activation: SkillActivationRow | undefined): void {
    const dims: Dims = {
      day: dayOf(e.time),
      accountId: e.accountId,
      packageId: e.packageId ?? activation?.packageId ?? '',
      skillId: e.skillId ?? activation?.skillId ?? '',
      version: e.artifactVersion ?? activation?.artifactVersion ?? '',
      host: e.hostName ?? e.serviceName ?? activation?.hostName ?? '',
      triggerType: '',
    };
    const type = (e.attributes['agent.user.intervention.type'] as string | undefined) ?? '';
    if (kind === 'intervention') {
      // a disable_skill/uninstall_skill intervention is the user's report of what an inventory
      // event observes on disk: it counts as an intervention, so the same act is not counted twice
      const c = this.counters(dims);
      c.interventions++;
      if (type === 'negative_feedback') c.negativeFeedback++;
    } else if (kind === 'feedback') {
      if (e.attributes['agent.skill.feedback.sentiment'] === 'negative') this.counters(dims).negativeFeedback++;
    } else if (kind === 'incident') this.counters(dims).incidents++;
    else if (kind === 'disable') this.counters(dims).disables++;
    else if (kind === 'uninstall') this.counters(dims).uninstalls++;
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
