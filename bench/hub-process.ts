import { decompressBody } from '../core/telemetry/otlp/index.js';
import { issueToken } from '../hub/auth/tokens.js';
import { decodeBody } from '../hub/ingest/decode.js';
import type { IngestCall, IngestResult } from '../hub/ingest/gateway.js';
import { decoderLimits } from '../hub/ingest/limits.js';
import { startHub } from '../hub/serve.js';
import { TelemetryService } from '../hub/telemetry/service.js';

/**
 * A hub in its own process for the telemetry benches (so the load generator does not share its
 * event loop): `node --import tsx bench/hub-process.ts <dataDir> [fingerprint] [mode]` prints one
 * JSON line `{ url, login, device, pat, repositoryId }` and stops when stdin closes.
 *
 * mode `ingest` (default) is the hub as `sf hub serve` runs it. mode `decode-only` is the same hub
 * HTTP server, routes, authentication, body reading and response encoding, but its ingest step
 * only decompresses and decodes the batch (the decoder and limits the real ingest uses) and
 * stores nothing: the ingest bench's baseline for what the HTTP layer itself costs.
 */

/** Telemetry whose ingest decodes and answers, nothing more (no admission, raw store, queue or normalizer). */
class DecodeOnlyTelemetry extends TelemetryService {
  override async ingest(call: IngestCall): Promise<IngestResult> {
    const body = decompressBody(call.body, call.contentEncoding, this.limits.maxDecompressedBytes);
    await decodeBody(call.signal, call.encoding, body, decoderLimits(this.limits));
    return { stored: false };
  }
}

async function main(dataDir: string, fingerprint: string, mode: string): Promise<void> {
  if (mode !== 'ingest' && mode !== 'decode-only') throw new Error(`unknown bench hub mode ${mode} (ingest or decode-only)`);
  // SF_BENCH_INLINE_NORMALIZER=1 normalizes on the HTTP thread (to compare with the worker thread)
  const inline = process.env.SF_BENCH_INLINE_NORMALIZER === '1';
  const hub = await startHub({
    dataDir,
    port: 0,
    telemetry: mode === 'decode-only' ? (storage) => new DecodeOnlyTelemetry(storage, { autoNormalize: false }) : inline ? { normalizerThread: undefined } : {},
  });
  const user = hub.storage.accounts.createUser('bench', false);
  const device = issueToken(hub.storage.tokens, { userId: user.id, kind: 'device', name: 'bench-device', scopes: ['telemetry:write'] }).secret;
  const pat = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 'bench', scopes: ['registry:read'] }).secret;
  const repositoryId = 'repo_bench';
  hub.storage.telemetry.repositories.put({ id: repositoryId, accountId: user.id, name: 'bench/app', fingerprints: [fingerprint], createdAt: new Date().toISOString() });
  process.stdout.write(`${JSON.stringify({ url: hub.url, login: 'bench', device, pat, repositoryId })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void hub.close().then(() => process.exit(0)));
}

void main(process.argv[2], process.argv[3] ?? 'rfp_bench_repository', process.argv[4] ?? 'ingest');
