import { dirname } from 'node:path';
import { encodeExportResponse } from '../telemetry/otlp/encode.js';
import type { Target } from './destinations.js';
import { ensureDirectory, fileAttempt, openForAppend } from './file-write.js';
import { sendOtlp } from './http-send.js';
import type { CanaryResult } from './store.js';

/**
 * A per-destination canary that proves reachability and credentials without writing telemetry:
 * an empty ExportLogsServiceRequest to an OTLP/HTTP destination (valid per the OTLP spec, so no
 * record is stored), or an append-mode open of a file destination (same deadline). Never throws.
 */
export async function runCanary(target: Target, timeoutMs = 5000): Promise<CanaryResult> {
  const start = Date.now();
  const done = (ok: boolean, extra: Partial<CanaryResult> = {}): CanaryResult => ({ ok, at: start, latencyMs: Date.now() - start, ...extra });
  if (target.kind === 'file') {
    try {
      await fileAttempt(target.path, async () => {
        await ensureDirectory(dirname(target.path));
        const fh = await openForAppend(target.path);
        await fh.close();
      }, { timeoutMs });
      return done(true);
    } catch (e) {
      return done(false, { error: (e as Error).message });
    }
  }
  let headers: Record<string, string>;
  try {
    headers = await target.headers();
  } catch (e) {
    return done(false, { error: (e as Error).message });
  }
  // an empty request: the protobuf encoding of ExportLogsServiceRequest{} is zero bytes, the JSON one `{}`
  const body = target.protocol === 'json' ? Buffer.from('{}') : await encodeExportResponse('logs', 'protobuf');
  const res = await sendOtlp({ url: `${target.endpoint}/v1/logs`, body, contentType: target.protocol === 'json' ? 'application/json' : 'application/x-protobuf', headers, timeoutMs, signal: 'logs' });
  if (res.kind === 'ok') return done(true, { status: res.status });
  return done(false, { error: res.error, ...(res.status ? { status: res.status } : {}) });
}
