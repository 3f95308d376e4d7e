import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHubApp } from '../hub/app.js';
import { issueToken } from '../hub/auth/tokens.js';
import { normalizeBatch } from '../hub/normalize/normalize-batch.js';
import { NORMALIZER_VERSION } from '../hub/normalize/version.js';
import { openEmbeddedStorage } from '../hub/storage/embedded/lmdb-store.js';
import type { HubStorage } from '../hub/storage/ports.js';
import { TelemetryService } from '../hub/telemetry/service.js';
import { benchCacheDir, ms, report, seededRandom } from './support.js';
import { logBatches } from './telemetry-batches.js';

/**
 * The repository timeline query (GET /api/v1/telemetry/repositories/:repo/timeline, in-process
 * through the Hono app, JSON included) over 1,000,000 stored events of one repository spread
 * over 60 days: the newest page and pages at random points in time, 500 events each. Target
 * (issue 5): p95 < 50 ms. Baseline, same run: reading the same pages' index entries and event
 * rows straight from the store, with no grouping, hydration or JSON.
 * The store is built once (about a minute) and kept in the bench cache directory.
 */

const EVENTS = 1_000_000;
const BATCH = 512;
const DAYS = 60;
const START = Date.UTC(2026, 5, 1);
const STORE_VERSION = `${NORMALIZER_VERSION}-timeline-v3`; // v2: actions, changes and feedback derived from events; v3: layout-2 projections (compact event rows, account numbers in keys)
const QUERIES = 200;
const PAGE = 500;

async function build(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const storage = openEmbeddedStorage(dir);
  const user = storage.accounts.createUser('bench', false);
  storage.telemetry.repositories.put({ id: 'repo_bench', accountId: user.id, name: 'bench/app', fingerprints: ['rfp_bench_repository'], createdAt: new Date(START).toISOString() });
  await storage.telemetry.projections.setActive({ generation: 1, normalizerVersion: NORMALIZER_VERSION, builtAt: new Date().toISOString() });
  const batches = Math.ceil(EVENTS / BATCH);
  const stepMs = Math.floor((DAYS * 24 * 3600 * 1000) / EVENTS) * 2;
  let i = 0;
  const started = Date.now();
  for (const request of logBatches({ size: BATCH, batches, stepMs, startMs: START, sessions: 2000, repositoryFingerprint: 'rfp_bench_repository', seed: 1 })) {
    const ctx = { accountId: user.id, deviceId: 'dev_bench', batchId: `rb_bench_${i}`, receivedAtMs: START + DAYS * 86_400_000, normalizerVersion: NORMALIZER_VERSION, resolveRepository: () => ({ repositoryId: 'repo_bench', resolution: 'resolved' as const }) };
    await storage.telemetry.projections.write(1, (w) => normalizeBatch(w, request, ctx));
    if (++i % 200 === 0) process.stdout.write(`  building the 1M-event store: ${i}/${batches} batches (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  await storage.close();
  await writeFile(join(dir, 'complete.json'), JSON.stringify({ version: STORE_VERSION, events: batches * BATCH, builtInSeconds: (Date.now() - started) / 1000 }));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The baseline: the page's index entries and event rows read from the store, nothing else. */
function rawPage(storage: HubStorage, generation: number, accountId: string, toMs: number): number {
  const reader = storage.telemetry.projections.reader(generation);
  const entries = reader.timeline(accountId, 'repo_bench', { fromMs: 0, toMs, limit: PAGE });
  for (const e of entries) reader.getEvent(accountId, e.eventId, e.deviceId);
  return entries.length;
}

async function run(): Promise<void> {
  const dir = join(await benchCacheDir('timeline-1m'), 'hub');
  const marker = join(dir, 'complete.json');
  const cached = existsSync(marker) && (JSON.parse(await readFile(marker, 'utf8')) as { version: string }).version === STORE_VERSION;
  if (!cached) await build(dir);
  const info = JSON.parse(await readFile(marker, 'utf8')) as { events: number; builtInSeconds: number };
  const storage = openEmbeddedStorage(dir);
  const telemetry = new TelemetryService(storage, { autoNormalize: false });
  await telemetry.start();
  try {
    const app = createHubApp({ storage, telemetry });
    const user = storage.accounts.listUsers().find((u) => u.login === 'bench')!;
    const pat = issueToken(storage.tokens, { userId: user.id, kind: 'pat', name: 'bench', scopes: ['registry:read'] }).secret;
    const end = START + DAYS * 86_400_000;
    const rnd = seededRandom(7);
    const points = Array.from({ length: QUERIES }, (_, i) => (i < 20 ? end : START + Math.floor(rnd() * (end - START))));
    const query = async (toMs: number) => {
      const res = await app.request(`/api/v1/telemetry/repositories/repo_bench/timeline?from=0&to=${toMs}&limit=${PAGE}`, { headers: { authorization: `Bearer ${pat}` } });
      const page = (await res.json()) as { sessions: { activations: unknown[] }[] };
      if (res.status !== 200 || page.sessions.length === 0) throw new Error(`timeline query failed: ${res.status}`);
      return page;
    };
    for (const p of points.slice(0, 10)) await query(p); // warm-up
    const full: number[] = [];
    const raw: number[] = [];
    let activations = 0;
    for (const p of points) {
      let t = process.hrtime.bigint();
      rawPage(storage, telemetry.generation(), user.id, p);
      raw.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      const page = await query(p);
      full.push(Number(process.hrtime.bigint() - t) / 1e6);
      activations += page.sessions.reduce((n, s) => n + s.activations.length, 0);
    }
    const p95 = percentile(full, 95);
    report([
      ['store', `${info.events.toLocaleString('en')} events of one repository over ${DAYS} days (${cached ? 'cached' : `built in ${info.builtInSeconds.toFixed(0)} s`})`],
      ['queries', `${QUERIES} pages of ${PAGE} events (newest page and random points in time), ~${Math.round(activations / QUERIES)} activations per page`],
      ['baseline: raw page reads', `p50 ${ms(percentile(raw, 50))}, p95 ${ms(percentile(raw, 95))}`],
      ['timeline query (HTTP, JSON)', `p50 ${ms(percentile(full, 50))}, p95 ${ms(p95)} (target p95 < 50 ms: ${p95 < 50 ? 'met' : 'NOT met'})`],
      ['query / raw reads (p50)', `${(percentile(full, 50) / percentile(raw, 50)).toFixed(2)}x`],
    ]);
  } finally {
    await telemetry.stop();
    await storage.close();
  }
}

export default { name: 'hub repository timeline query (1M events)', run };
