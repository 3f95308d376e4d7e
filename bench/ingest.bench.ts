import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { decodeProtobufDirect } from '../core/telemetry/otlp/direct-decode.js';
import { decodeOtlpRequest, encodeOtlpRequest } from '../core/telemetry/otlp/index.js';
import { benchTempDir, cleanEnv, ms, repoRoot, report } from './support.js';
import { logBatches } from './telemetry-batches.js';

/**
 * Sustained OTLP ingest into the hub: protobuf log batches of 512 records POSTed to /v1/logs of a
 * hub running in its own process (embedded LMDB + raw blob directory), 4 requests in flight,
 * every record with its own agent.skill.event.id (deduplicated on it) plus replayed deliveries.
 * Throughput counts until the normalization queue is empty, so it includes raw persistence,
 * dedupe and every projection write, not just the HTTP acknowledgement. Baseline, same run: decode
 * only — the same batches decoded by the same protobuf decoder the ingest path uses, no storage.
 * Targets (issue 5): ingest >= 0.4x decode-only and >= 20,000 records/s.
 */

const BATCH = 512;
const BATCHES = 160;
const REPLAYED = 8;
const IN_FLIGHT = 4;
const FINGERPRINT = 'rfp_bench_repository';

interface HubInfo {
  url: string;
  device: string;
  pat: string;
}

/** The hub as `npm run bench` builds it (dist/, plain JS); from source through tsx when dist/ is absent. */
export function hubCommand(): { args: string[]; label: string } {
  const compiled = join(repoRoot, 'dist', 'bench', 'hub-process.js');
  return existsSync(compiled) ? { args: [compiled], label: 'compiled (dist/)' } : { args: ['--import', 'tsx', join(repoRoot, 'bench', 'hub-process.ts')], label: 'from source (tsx)' };
}

function startHubProcess(dataDir: string): Promise<{ child: ChildProcess; info: HubInfo }> {
  const child = spawn(process.execPath, [...hubCommand().args, dataDir, FINGERPRINT], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`bench hub exited early (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, info: JSON.parse(line) as HubInfo }));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** CPU milliseconds (user + system, all threads) a process has used so far, from /proc. */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function decodeOnly(bodies: Uint8Array[]): Promise<{ direct: number; directCpu: number; reference: number }> {
  let best = Infinity;
  let bestCpu = Infinity;
  for (let pass = 0; pass < 3; pass++) {
    const start = process.hrtime.bigint();
    const cpu = cpuNow();
    for (const b of bodies) decodeProtobufDirect('logs', b);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
    bestCpu = Math.min(bestCpu, cpuNow() - cpu);
  }
  const start = process.hrtime.bigint();
  for (const b of bodies) await decodeOtlpRequest('logs', b, 'protobuf');
  const reference = Number(process.hrtime.bigint() - start) / 1e6;
  const records = bodies.length * BATCH;
  return { direct: (records / best) * 1000, directCpu: (records / bestCpu) * 1000, reference: (records / reference) * 1000 };
}

async function run(): Promise<void> {
  const bodies: Uint8Array[] = [];
  for (const req of logBatches({ size: BATCH, batches: BATCHES, repositoryFingerprint: FINGERPRINT, startMs: Date.UTC(2026, 7, 1) })) bodies.push(await encodeOtlpRequest(req, 'protobuf'));
  const decode = await decodeOnly(bodies);

  const dir = await benchTempDir('sf-bench-ingest-');
  const { child, info } = await startHubProcess(dir.path);
  try {
    const headers = { 'content-type': 'application/x-protobuf', authorization: `Bearer ${info.device}` };
    const post = async (body: Uint8Array) => {
      const t = process.hrtime.bigint();
      const res = await fetch(`${info.url}/v1/logs`, { method: 'POST', body: body as BodyInit, headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    // warm the hub's JIT and LMDB on a separate stream of batches, then measure
    for (const req of logBatches({ size: BATCH, batches: 8, seed: 7, repositoryFingerprint: FINGERPRINT })) await post(await encodeOtlpRequest(req, 'protobuf'));
    await waitForDrain(info);

    const sends = [...bodies, ...bodies.slice(0, REPLAYED)];
    const latencies: number[] = [];
    const hubCpuStart = processCpuMs(child.pid!);
    const start = process.hrtime.bigint();
    let next = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < sends.length) latencies.push(await post(sends[next++]));
    }));
    const acknowledged = Number(process.hrtime.bigint() - start) / 1e6;
    await waitForDrain(info);
    const total = Number(process.hrtime.bigint() - start) / 1e6;
    const hubCpu = processCpuMs(child.pid!) - hubCpuStart;
    const records = BATCHES * BATCH;
    const ingestRate = (records / total) * 1000;
    latencies.sort((a, b) => a - b);
    const ratio = ingestRate / decode.direct;
    const perCpuSecond = (records / hubCpu) * 1000;
    report([
      ['batches', `${BATCHES} x ${BATCH} records (+${REPLAYED} replayed deliveries), ${IN_FLIGHT} in flight, protobuf, uncompressed; hub ${hubCommand().label}`],
      ['decode-only (baseline)', `${Math.round(decode.direct).toLocaleString('en')} records/s (direct decoder; protobufjs reference decoder: ${Math.round(decode.reference).toLocaleString('en')} records/s)`],
      ['ingest, all acknowledged', `${ms(acknowledged)} (${Math.round((records / acknowledged) * 1000).toLocaleString('en')} records/s acknowledged)`],
      ['ingest, all normalized', `${ms(total)}: ${Math.round(ingestRate).toLocaleString('en')} records/s (target >= 20,000: ${ingestRate >= 20_000 ? 'met' : 'NOT met'})`],
      ['ingest / decode-only', `${ratio.toFixed(2)}x (target >= 0.40x: ${ratio >= 0.4 ? 'met' : 'NOT met'})`],
      ['request latency', `p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1])}`],
      // wall-clock figures move with the load of this shared machine; CPU-time figures much less
      ['per CPU second', `hub ${Math.round(perCpuSecond).toLocaleString('en')} records per hub CPU-second (all its threads) vs decode-only ${Math.round(decode.directCpu).toLocaleString('en')}: ${(perCpuSecond / decode.directCpu).toFixed(2)}x`],
      ['machine load', `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on 2 cores`],
    ]);
  } finally {
    child.removeAllListeners('exit');
    const exited = new Promise((r) => child.once('exit', r));
    child.stdin!.end();
    await exited;
    await dir.cleanup();
  }
}

async function waitForDrain(info: HubInfo): Promise<void> {
  for (;;) {
    const res = await fetch(`${info.url}/api/v1/telemetry/health`, { headers: { authorization: `Bearer ${info.pat}` } });
    const body = (await res.json()) as { queued: number };
    if (body.queued === 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export default { name: 'hub OTLP ingest (512-record protobuf log batches)', run };
