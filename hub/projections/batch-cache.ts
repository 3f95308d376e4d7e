import type { SkillActivationRow } from './rows.js';
import type { ProjectionWriter } from '../storage/telemetry-ports.js';

/**
 * A ProjectionWriter that keeps the activation rows of one batch in memory and writes each
 * changed row once at the end: an activation's selection, load start and load result usually
 * arrive in the same batch, and writing the row three times was a third of the normalizer's cost.
 */
export class BatchCachedWriter implements ProjectionWriter {
  private readonly activations = new Map<string, SkillActivationRow | null>();
  private readonly dirty = new Set<string>();

  constructor(private readonly inner: ProjectionWriter) {}

  getActivation(accountId: string, deviceId: string, activationId: string): SkillActivationRow | undefined {
    const key = `${accountId}\u0000${deviceId}\u0000${activationId}`;
    const hit = this.activations.get(key);
    if (hit !== undefined) return hit ?? undefined;
    const row = this.inner.getActivation(accountId, deviceId, activationId);
    this.activations.set(key, row ?? null);
    return row;
  }

  putActivation(row: SkillActivationRow): void {
    const key = `${row.accountId}\u0000${row.deviceId}\u0000${row.activationId}`;
    this.activations.set(key, row);
    this.dirty.add(key);
  }

  /** Writes every activation row and session count changed in this batch. */
  flush(): void {
    for (const key of this.dirty) this.inner.putActivation(this.activations.get(key)!);
    this.dirty.clear();
    for (const e of this.sessionCounts.values()) if (e.dirty) this.inner.setRollupSessionCount(e.r, e.s, e.n);
    this.sessionCounts.clear();
  }

  insertEvent: ProjectionWriter['insertEvent'] = (row, encoded) => this.inner.insertEvent(row, encoded);
  storedEvent: ProjectionWriter['storedEvent'] = (a, d, id) => this.inner.storedEvent(a, d, id);
  recordConflict: ProjectionWriter['recordConflict'] = (c) => this.inner.recordConflict(c);
  indexTimeline: ProjectionWriter['indexTimeline'] = (a, repo, e) => this.inner.indexTimeline(a, repo, e);
  linkActivationItem: ProjectionWriter['linkActivationItem'] = (a, d, id, item) => this.inner.linkActivationItem(a, d, id, item);
  linkedEvents: ProjectionWriter['linkedEvents'] = (a, d, id, names) => this.inner.linkedEvents(a, d, id, names);
  addCoactive(accountId: string, deviceId: string, a: string, b: string): boolean {
    this.coactiveCache.delete(`${accountId}\u0000${deviceId}\u0000${a}`);
    this.coactiveCache.delete(`${accountId}\u0000${deviceId}\u0000${b}`);
    return this.inner.addCoactive(accountId, deviceId, a, b);
  }
  private readonly coactiveCache = new Map<string, string[]>();

  coactive(accountId: string, deviceId: string, activationId: string): string[] {
    const key = `${accountId}\u0000${deviceId}\u0000${activationId}`;
    let ids = this.coactiveCache.get(key);
    if (!ids) this.coactiveCache.set(key, (ids = this.inner.coactive(accountId, deviceId, activationId)));
    return ids;
  }

  indexSkill: ProjectionWriter['indexSkill'] = (a, skill, item) => this.inner.indexSkill(a, skill, item);
  unindexSkill: ProjectionWriter['unindexSkill'] = (a, skill, item) => this.inner.unindexSkill(a, skill, item);
  indexCheckpoint: ProjectionWriter['indexCheckpoint'] = (a, d, cp, item) => this.inner.indexCheckpoint(a, d, cp, item);
  indexCheckpointRecord: ProjectionWriter['indexCheckpointRecord'] = (a, d, cp, item) => this.inner.indexCheckpointRecord(a, d, cp, item);
  getRollup: ProjectionWriter['getRollup'] = (r) => this.inner.getRollup(r);
  putRollup: ProjectionWriter['putRollup'] = (row) => this.inner.putRollup(row);
  /** session counts of this batch's rollup rows: read once, written once at the end (see flush) */
  private readonly sessionCounts = new Map<string, { r: Parameters<ProjectionWriter['rollupSessionCount']>[0]; s: string; n: number; dirty: boolean }>();

  private sessionEntry(r: Parameters<ProjectionWriter['rollupSessionCount']>[0], s: string) {
    const key = `${r.day}\u0000${r.accountId}\u0000${r.packageId}\u0000${r.skillId}\u0000${r.version}\u0000${r.host}\u0000${r.triggerType}\u0000${s}`;
    let e = this.sessionCounts.get(key);
    if (!e) this.sessionCounts.set(key, (e = { r, s, n: this.inner.rollupSessionCount(r, s), dirty: false }));
    return e;
  }

  rollupSessionCount: ProjectionWriter['rollupSessionCount'] = (r, s) => this.sessionEntry(r, s).n;
  setRollupSessionCount: ProjectionWriter['setRollupSessionCount'] = (r, s, n) => {
    const e = this.sessionEntry(r, s);
    e.n = n;
    e.dirty = true;
  };
}
