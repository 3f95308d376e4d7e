import { issueToken } from '../hub/auth/tokens.js';
import { startHub } from '../hub/serve.js';

/**
 * A hub in its own process for the telemetry benches (so the load generator does not share its
 * event loop): `node --import tsx bench/hub-process.ts <dataDir>` prints one JSON line
 * `{ url, login, device, pat, repositoryId }` and stops when stdin closes.
 */
async function main(dataDir: string, fingerprint: string): Promise<void> {
  // SF_BENCH_INLINE_NORMALIZER=1 normalizes on the HTTP thread (to compare with the worker thread)
  const hub = await startHub({ dataDir, port: 0, telemetry: process.env.SF_BENCH_INLINE_NORMALIZER === '1' ? { normalizerThread: undefined } : {} });
  const user = hub.storage.accounts.createUser('bench', false);
  const device = issueToken(hub.storage.tokens, { userId: user.id, kind: 'device', name: 'bench-device', scopes: ['telemetry:write'] }).secret;
  const pat = issueToken(hub.storage.tokens, { userId: user.id, kind: 'pat', name: 'bench', scopes: ['registry:read'] }).secret;
  const repositoryId = 'repo_bench';
  hub.storage.telemetry.repositories.put({ id: repositoryId, accountId: user.id, name: 'bench/app', fingerprints: [fingerprint], createdAt: new Date().toISOString() });
  process.stdout.write(`${JSON.stringify({ url: hub.url, login: 'bench', device, pat, repositoryId })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void hub.close().then(() => process.exit(0)));
}

void main(process.argv[2], process.argv[3] ?? 'rfp_bench_repository');
