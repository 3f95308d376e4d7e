import type { OtlpLimits } from '../../core/telemetry/otlp/index.js';
import { decodeBody } from '../ingest/decode.js';
import type { TelemetryStorage } from '../storage/telemetry-ports.js';
import type { RawBatchLoader } from './worker.js';

/**
 * Decodes stored raw batches from the raw blob store (already admitted, so no admission runs
 * again). Undefined when the blob is gone (swept).
 */
export function rawBatchLoader(telemetry: TelemetryStorage, limits: OtlpLimits): RawBatchLoader {
  return async (record) => {
    const bytes = await telemetry.rawBlobs.get(record.sha256);
    if (!bytes) return undefined;
    return (await decodeBody(record.signal, record.encoding, bytes, limits)).request;
  };
}
