import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import type { SkillActivationRow } from '../../../projections/rows.js';
import type { ExpiredBatch, ExpiredEvent, NormalizationFailure, QueueItem, TelemetryStorage } from '../../telemetry-ports.js';
import { BlobDir } from '../blob-dir.js';
import { LmdbHealth, LmdbRepositoryLinks, LmdbTelemetrySettings } from './accounts.js';
import { LmdbProjections, type ProjectionDbs } from './projections.js';
import { LmdbExpiredFacts, LmdbRawBatches, type RawBatchDbs } from './raw-batches.js';

/**
 * The embedded telemetry storage: `tm-*` sub-databases of the hub's LMDB environment (the
 * registry's databases are untouched) and `<dataDir>/telemetry-raw/`, a blob directory of its
 * own for raw OTLP batches so the retention sweeper can never touch release archives.
 */
export function openEmbeddedTelemetry(root: RootDatabase, dataDir: string): TelemetryStorage {
  // rows of one table share a few shapes: msgpack shared structures keep them small and fast
  const rows = <V>(name: string) => root.openDB<V, (string | number)[]>({ name, sharedStructuresKey: Symbol.for('structures') });
  const index = <V>(name: string) => root.openDB<V, (string | number)[]>({ name });
  const meta = root.openDB<unknown, string>({ name: 'tm-meta' });
  const queue: Database<QueueItem, number> = root.openDB<QueueItem, number>({ name: 'tm-queue' });
  const dbs: ProjectionDbs = {
    events: rows('tm-events'),
    eventsV2: root.openDB<Buffer, (string | number)[]>({ name: 'tm-events-v2', encoding: 'binary' }),
    timeline: index('tm-timeline'),
    activations: rows('tm-activations'),
    activationsV2: root.openDB<SkillActivationRow, (string | number)[]>({ name: 'tm-activations-v2', encoding: 'json' }),
    actItems: index('tm-act-items'),
    coactive: index('tm-coactive'),
    skillItems: index('tm-skill-items'),
    rollups: rows('tm-rollups'),
    rollupSessions: index('tm-rollup-sessions'),
    conflicts: index('tm-conflicts'),
    queue,
    meta,
  };
  const expired: Pick<RawBatchDbs, 'expired' | 'expiredEvents'> = {
    expired: root.openDB<ExpiredBatch, (string | number)[]>({ name: 'tm-expired' }),
    expiredEvents: root.openDB<ExpiredEvent[], (string | number)[]>({ name: 'tm-expired-events' }),
  };
  const raw = new LmdbRawBatches(root, { batches: index('tm-raw'), byTime: index('tm-raw-time'), bySha: index('tm-raw-sha'), queue, meta, ...expired });
  return {
    settings: new LmdbTelemetrySettings(root.openDB({ name: 'tm-settings' })),
    repositories: new LmdbRepositoryLinks(root, index('tm-repos'), index('tm-repo-fingerprints')),
    rawBatches: raw,
    rawBlobs: new BlobDir(join(dataDir, 'telemetry-raw')),
    expired: new LmdbExpiredFacts(expired),
    queue: raw,
    projections: new LmdbProjections(root, dbs),
    health: new LmdbHealth(root, index('tm-health'), root.openDB<NormalizationFailure, (string | number)[]>({ name: 'tm-normalization-failures' })),
    freshReads: () => root.resetReadTxn(),
  };
}
