import type { Database, RootDatabase } from 'lmdb';
import { SfError } from '../../../../core/errors/index.js';
import type { CollectorHealthRow } from '../../../projections/rows.js';
import type { HealthStore, NormalizationFailure, RepositoryLink, RepositoryLinkStore, TelemetryAccountSettings, TelemetrySettingsStore } from '../../telemetry-ports.js';

type Key = (string | number)[];

/** Per-account telemetry settings (content opt-in, retention tier). */
export class LmdbTelemetrySettings implements TelemetrySettingsStore {
  constructor(private readonly db: Database<TelemetryAccountSettings, string>) {}

  get(accountId: string) {
    return this.db.get(accountId);
  }

  put(settings: TelemetryAccountSettings) {
    this.db.putSync(settings.accountId, settings);
  }
}

/** Repository links with a fingerprint index for server-side hint resolution. */
export class LmdbRepositoryLinks implements RepositoryLinkStore {
  constructor(
    private readonly root: RootDatabase,
    private readonly links: Database<RepositoryLink, Key>,
    private readonly byFp: Database<string, Key>,
  ) {}

  list(accountId: string) {
    return [...this.links.getRange({ start: [accountId], end: [accountId, '\uffff'] })].map((e) => e.value);
  }

  get(accountId: string, repositoryId: string) {
    return this.links.get([accountId, repositoryId]);
  }

  put(link: RepositoryLink) {
    this.root.transactionSync(() => {
      for (const fp of link.fingerprints) {
        const owner = this.byFp.get([link.accountId, fp]);
        if (owner && owner !== link.id) {
          throw new SfError('SF_E_CONFLICT', `fingerprint ${fp} is already linked to repository ${owner}`, { hint: 'unlink it there first' });
        }
      }
      const previous = this.links.get([link.accountId, link.id]);
      for (const fp of previous?.fingerprints ?? []) this.byFp.removeSync([link.accountId, fp]);
      for (const fp of link.fingerprints) this.byFp.putSync([link.accountId, fp], link.id);
      this.links.putSync([link.accountId, link.id], link);
    });
  }

  remove(accountId: string, repositoryId: string) {
    return this.root.transactionSync(() => {
      const link = this.links.get([accountId, repositoryId]);
      if (!link) return false;
      for (const fp of link.fingerprints) this.byFp.removeSync([accountId, fp]);
      this.links.removeSync([accountId, repositoryId]);
      return true;
    });
  }

  byFingerprint(accountId: string, fingerprint: string) {
    return this.byFp.get([accountId, fingerprint]);
  }
}

/** Collector/adapter health rows, written at ingest time, and the batches the normalizer gave up on. */
export class LmdbHealth implements HealthStore {
  /** health rows whose write failed (a full disk): dropped, logged once, counted here */
  failedWrites = 0;

  constructor(
    private readonly root: RootDatabase,
    private readonly db: Database<CollectorHealthRow, Key>,
    private readonly failures: Database<NormalizationFailure, Key>,
  ) {}

  get(accountId: string, key: string) {
    return this.db.get([accountId, key]);
  }

  put(key: string, row: CollectorHealthRow) {
    // synchronous: inside a batch's transaction it is part of it; on its own (a heartbeat with no
    // records) it commits at once. An async put's failed commit (a full disk) rejects promises of
    // lmdb's own that no one can handle, which ends `sf hub serve`, and its flush never settles
    try {
      this.db.putSync([row.accountId, key], row);
    } catch (e) {
      // a heartbeat is dropped, never the request
      if (this.failedWrites++ === 0) console.error('hub telemetry: a collector health row could not be written and was dropped (later failures are only counted):', e);
    }
  }

  list(accountId: string) {
    return [...this.db.getRange({ start: [accountId], end: [accountId, '\uffff'] })].map((e) => e.value);
  }

  recordNormalizationFailure(failure: NormalizationFailure) {
    this.failures.putSync([failure.accountId, failure.batchId], failure);
  }

  normalizationFailures(accountId?: string) {
    const range = accountId === undefined ? {} : { start: [accountId], end: [accountId, '\uffff'] };
    return [...this.failures.getRange(range)].map((e) => e.value);
  }

  async clearNormalizationFailures(batches: readonly { accountId: string; batchId: string }[]) {
    if (batches.length === 0) return;
    await this.root.transaction(() => {
      for (const b of batches) this.failures.removeSync([b.accountId, b.batchId]);
    });
  }
}
