import { stat } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';
import { Library } from '../library/db.js';
import type { SfPaths } from '../library/paths.js';
import { recordScopeKey, type InstallationRecord } from '../library/types.js';
import { buildSkillIndex, resolveSkill, type SkillIndex, type SkillQuery, type SkillResolution } from '../telemetry/enrich/skill-index.js';
import { nanosToMs } from '../telemetry/time.js';

/** How far back events reach the observer: the spool keeps hook events this long (spool.ts). */
export const HISTORY_MS = 12 * 3600_000;
/** Past library states kept at most, whatever their age (memory bound). */
export const MAX_GENERATIONS = 32;

/** One state of the library and when it began. */
interface Generation {
  index: SkillIndex;
  /** epoch ms from which the library held this state */
  from: number;
  /** the last time (epoch ms) the library was seen still in this state */
  seenAt: number;
  /** installation key -> updatedAt, to tell which records a later state changed */
  stamps: ReadonlyMap<string, string>;
}

const EMPTY: Generation = { index: { entries: [] }, from: 0, seenAt: 0, stamps: new Map() };

/**
 * The observer's view of the canonical library: the skill index, rebuilt when library.lmdb
 * changed (its mtime), checked at most every `minIntervalMs` (on every outbox tick and host
 * request). The library is opened only for the read and closed again, so install commands are
 * never blocked by the observer.
 *
 * Hosts report activations late (Claude Code exports in batches, the OpenCode spool is replayed
 * after the observer was down), so the states of the last `HISTORY_MS` are kept with the time
 * each began, and an activation is resolved against the state at its own time. Before the oldest
 * state held, only records already in place at the event's time are trusted.
 */
export class LibraryIndex {
  /** oldest first; the last is the current state */
  private generations: Generation[] = [];
  private mtime = -1;
  private checkedAt = 0;

  constructor(private readonly paths: SfPaths, private readonly minIntervalMs = 500) {}

  get current(): SkillIndex {
    return (this.generations.at(-1) ?? EMPTY).index;
  }

  /** Resolves `q` against the library as it was at `q.at` (now when absent). */
  resolve(q: SkillQuery): SkillResolution {
    const at = q.at !== undefined ? nanosToMs(q.at) : Date.now();
    const gens = this.generations.length ? this.generations : [EMPTY];
    const gen = gens.findLast((g) => g.from <= at) ?? gens[0];
    const res = resolveSkill(gen.index, q);
    // a record written after the event (before the oldest state held, or changed more than once
    // between two looks): what ran then is not known, so no identity is claimed
    if (res.entry && res.entry.since > at) return { resolution: 'ambiguous', candidates: res.candidates };
    // nothing installed now, but the library was written after the event (before the oldest state
    // held): an installation it had then may have been removed since, so "not Forge's" is not known
    if (res.resolution === 'not_installed' && q.hostScope !== 'other' && at < gens[0].from) return { resolution: 'ambiguous', candidates: 0 };
    return res;
  }

  /** Rebuilds the index if the library changed since the last look. */
  async refresh(force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - this.checkedAt < this.minIntervalMs) return;
    this.checkedAt = now;
    let mtime: number;
    try {
      mtime = (await stat(this.paths.library)).mtimeMs;
    } catch (e) {
      if (hasErrno(e, 'ENOENT')) {
        this.record([], now, now);
        return;
      }
      throw e;
    }
    if (mtime === this.mtime && !force) {
      this.seen(now);
      return;
    }
    const lib = await Library.open(this.paths, { create: false, readOnly: true });
    if (!lib) return;
    try {
      this.record(lib.listInstallations(), mtime, now);
      this.mtime = mtime;
    } finally {
      await lib.close();
    }
  }

  private seen(now: number): void {
    const last = this.generations.at(-1);
    if (last) last.seenAt = now;
  }

  /** Adds the state read now as a generation (if it differs) and forgets what is too old. */
  private record(records: readonly InstallationRecord[], mtime: number, now: number): void {
    const stamps = new Map(records.map((r) => [recordKey(r), r.updatedAt]));
    const last = this.generations.at(-1);
    if (last && sameStamps(last.stamps, stamps)) return this.seen(now);
    const changed = (r: InstallationRecord) => last !== undefined && last.stamps.get(recordKey(r)) !== r.updatedAt;
    // the change came after the last look that still saw the previous state
    const from = last ? Math.max(changedSince(last.stamps, records.filter(changed), mtime), last.seenAt) : Math.min(mtime, now);
    // a changed record is certain only once the write that brought it committed (the library's
    // mtime); an event during the command that wrote it may have run either release
    const index = buildSkillIndex(records, (r) => (changed(r) ? Math.max(Date.parse(r.updatedAt), mtime) : Date.parse(r.updatedAt)));
    // a state that began before the last one (a write that took long) supersedes it
    while (this.generations.length && this.generations.at(-1)!.from >= from) this.generations.pop();
    this.generations.push({ index, from, seenAt: now, stamps });
    // a state is needed while an event from its time may still arrive: until its successor began + HISTORY_MS
    while (this.generations.length > MAX_GENERATIONS || (this.generations.length > 1 && this.generations[1].from < now - HISTORY_MS)) this.generations.shift();
  }
}

const recordKey = (r: InstallationRecord) => `${recordScopeKey(r)}\u0000${r.skitId}`;

function sameStamps(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/**
 * When the new state began: the earliest write among the changed records (a new installation
 * existed from its installedAt on), else the library's last write (a removal leaves no record to
 * date it).
 */
function changedSince(before: ReadonlyMap<string, string>, changed: readonly InstallationRecord[], mtime: number): number {
  const times = changed.map((r) => Date.parse(before.has(recordKey(r)) ? r.updatedAt : r.installedAt)).filter(Number.isFinite);
  return Math.min(mtime, ...times);
}
