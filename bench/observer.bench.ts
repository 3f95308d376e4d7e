import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_OBSERVE_CONFIG } from '../core/observer/config.js';
import { startObserver } from '../core/observer/service.js';
import { sendObserverMessage } from '../core/observer/socket-client.js';
import { decodeOtlpRequest } from '../core/telemetry/otlp/decode.js';
import { encodeOtlpRequest, otlpJsonObject } from '../core/telemetry/otlp/encode.js';
import type { OtlpLogRecord, OtlpLogsRequest } from '../core/telemetry/otlp/types.js';
import { benchTempDir, ratio, repoRoot, report } from './support.js';

/**
 * Observer throughput: sustained normalized events/s from native OTLP input (Claude Code skill
 * activations as protobuf over HTTP) through normalization, the LMDB queue and delivery to a file
 * destination. Baseline, same run and payloads: decode the same protobuf bodies, JSON.stringify
 * them and append them to a file (the cost floor of "receive and write it down").
 */

const REQUESTS = Number(process.env.BENCH_OBSERVER_REQUESTS ?? 300);
const ACTIVATIONS_PER_REQUEST = 10;
const CONCURRENCY = 4;

async function payloads(): Promise<Uint8Array[]> {
  const capture = (await decodeOtlpRequest('logs', await readFile(join(repoRoot, 'fixtures/host-otlp/claude-tool-details/logs.json')), 'json')) as OtlpLogsRequest;
  const template = capture.resources[0].scopes[0].items;
  const out: Uint8Array[] = [];
  for (let r = 0; r < REQUESTS; r++) {
    const items: OtlpLogRecord[] = [];
    for (let a = 0; a < ACTIVATIONS_PER_REQUEST; a++) {
      const session = `bench-${r}-${a}`;
      for (const rec of template) items.push({ ...rec, attributes: { ...rec.attributes, 'session.id': session, ...(rec.attributes.tool_use_id ? { tool_use_id: `tu-${r}-${a}` } : {}) } });
    }
    const req: OtlpLogsRequest = { signal: 'logs', resources: [{ ...capture.resources[0], scopes: [{ ...capture.resources[0].scopes[0], items }] }] };
    out.push(await encodeOtlpRequest(req, 'protobuf'));
  }
  return out;
}

async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await fn(items[i++]);
  }));
}

export default {
  name: 'observer: native OTLP -> normalized events -> file destination',
  async run(): Promise<void> {
    const bodies = await payloads();
    const expectedEvents = REQUESTS * ACTIVATIONS_PER_REQUEST * 3;
    const tmp = await benchTempDir('sf-bench-observer-');
    try {
      // baseline: decode + serialize + append the same payloads
      const baseFile = join(tmp.path, 'baseline.jsonl');
      const b0 = process.hrtime.bigint();
      await pool(bodies, CONCURRENCY, async (body) => {
        const req = await decodeOtlpRequest('logs', body, 'protobuf');
        await appendFile(baseFile, JSON.stringify(otlpJsonObject(req)) + '\n');
      });
      const baseMs = Number(process.hrtime.bigint() - b0) / 1e6;

      const file = join(tmp.path, 'observer.jsonl');
      const observer = await startObserver({
        env: { SF_HOME: join(tmp.path, 'home'), HOME: tmp.path }, port: 0,
        config: { ...DEFAULT_OBSERVE_CONFIG, batch: { maxRecords: 2048, delayMs: 50 }, queue: { maxRecords: 1_000_000, maxAgeHours: 1 }, destinations: [{ name: 'file', type: 'file', path: file }] },
      });
      try {
        for (let r = 0; r < REQUESTS; r++) {
          for (let a = 0; a < ACTIVATIONS_PER_REQUEST; a++) await sendObserverMessage(observer.socketPath, { type: 'register', agent: 'claude-code', session_id: `bench-${r}-${a}`, cwd: tmp.path }, 2000);
        }
        const t0 = process.hrtime.bigint();
        await pool(bodies, CONCURRENCY, async (body) => {
          const res = await fetch(`${observer.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: Buffer.from(body) });
          if (res.status !== 200) throw new Error(`observer answered ${res.status}`);
          await res.arrayBuffer();
        });
        const acceptedMs = Number(process.hrtime.bigint() - t0) / 1e6;
        // every request is answered; wait until every normalized event is in the file
        while (observer.status().normalized.events < expectedEvents) await new Promise((r) => setTimeout(r, 5));
        observer.flush();
        for (;;) {
          const file0 = observer.status().destinations[0];
          if (file0.queued.items === 0) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
        const st = observer.status();
        const perSec = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en-US')} /s`;
        report([
          ['input', `${REQUESTS} protobuf requests x ${ACTIVATIONS_PER_REQUEST} activations (${expectedEvents} normalized events, ${REQUESTS * ACTIVATIONS_PER_REQUEST * 11} native records)`],
          ['baseline: decode + write (native records)', `${baseMs.toFixed(0)} ms  ${perSec(REQUESTS * ACTIVATIONS_PER_REQUEST * 11, baseMs)} records`],
          ['observer: all requests answered', `${acceptedMs.toFixed(0)} ms`],
          ['observer: all events in the file', `${totalMs.toFixed(0)} ms  ${perSec(st.normalized.events, totalMs)} events  (delivered ${st.destinations[0].delivered} records, errors ${st.errors})`],
          ['observer vs baseline (wall time, same payloads)', ratio(totalMs, baseMs)],
        ]);
      } finally {
        await observer.close();
      }
    } finally {
      await rm(tmp.path, { recursive: true, force: true });
    }
  },
};
