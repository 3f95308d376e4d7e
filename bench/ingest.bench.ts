import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { decodeProtobufDirect } from '../core/telemetry/otlp/direct-decode.js';
import { decodeOtlpRequest, encodeOtlpRequest } from '../core/telemetry/otlp/index.js';
import { cpuSplit, processCpuMs, threadCpuMs } from './proc-cpu.js';
import { benchTempDir, cleanEnv, ms, repoRoot, report } from './support.js';
import { logBatches } from './telemetry-batches.js';

/**
 * Sustained OTLP ingest into the hub: protobuf log batches of 512 records POSTed to /v1/logs of a
 * hub running in its own process (embedded LMDB + raw blob directory), 4 requests in flight,
 * every record with its own agent.skill.event.id (deduplicated on it) plus replayed deliveries.
 * Throughput counts until the normalization queue is empty, so it includes raw persistence,
 * dedupe and every projection write, not just the HTTP acknowledgement. Baseline, same run: decode
 * only — the same batches decoded by the same protobuf decoder the ingest path uses (the direct
 * decoder), no storage. The protobufjs reference decoder's rate is printed next to it for
 * comparison only: it is about 3x slower, so a ratio against it would flatter the ingest. A second
 * baseline, decode-only via HTTP, runs the same requests through the same hub HTTP server
 * (bench/hub-process.ts mode `decode-only`: auth, body reading, decoding, the answer, no storage),
 * so the cost of the HTTP layer itself is visible next to the headline ratio.
 * Targets (issue 5): ingest >= 0.4x decode-only and >= 20,000 records/s.
 *
 * SF_BENCH_INLINE_NORMALIZER=1 normalizes on the hub's HTTP thread instead of its normalizer
 * thread (to compare); SF_BENCH_CPU_PROF=<dir> writes CPU profiles of the hub's threads.
 */

const INLINE = process.env.SF_BENCH_INLINE_NORMALIZER === '1';

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

/** `SF_BENCH_CPU_PROF=<dir>` profiles the hub process (node --cpu-prof) to find where ingest spends its time. */
const profileArgs = (): string[] => (process.env.SF_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SF_BENCH_CPU_PROF}`] : []);

type HubMode = 'ingest' | 'decode-only';

function startHubProcess(dataDir: string, mode: HubMode): Promise<{ child: ChildProcess; info: HubInfo }> {
  // profiles (SF_BENCH_CPU_PROF) are of the ingest hub only
  const child = spawn(process.execPath, [...(mode === 'ingest' ? profileArgs() : []), ...hubCommand().args, dataDir, FINGERPRINT, mode], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`bench hub exited early (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, info: JSON.parse(line) as HubInfo }));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Best of three passes, wall clock and CPU, in records per second. */
async function bestOf3(records: number, pass: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  let best = Infinity;
  let bestCpu = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = process.hrtime.bigint();
    const cpu = cpuNow();
    await pass();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
    bestCpu = Math.min(bestCpu, cpuNow() - cpu);
  }
  return { wall: (records / best) * 1000, cpu: (records / bestCpu) * 1000 };
}

async function decodeOnly(bodies: Uint8Array[]): Promise<{ direct: number; directCpu: number; reference: number }> {
  const records = bodies.length * BATCH;
  const direct = await bestOf3(records, async () => {
    for (const b of bodies) decodeProtobufDirect('logs', b);
  });
  const reference = await bestOf3(records, async () => {
    for (const b of bodies) await decodeOtlpRequest('logs', b, 'protobuf');
  });
  return { direct: direct.wall, directCpu: direct.cpu, reference: reference.wall };
}

interface HubRun {
  /** ms until every request was answered */
  acknowledged: number;
  /** ms until every request was answered and (ingest mode) the normalization queue was empty */
  total: number;
  /** hub CPU ms in the measured window, all threads */
  hubCpu: number;
  split: { main: number; busiest: number; rest: number };
  /** request latencies in ms, sorted */
  latencies: number[];
}

/** Starts a bench hub in `mode`, warms it up, then POSTs `sends` with IN_FLIGHT requests in flight. */
async function runHub(mode: HubMode, sends: Uint8Array[]): Promise<HubRun> {
  const dir = await benchTempDir(`sf-bench-ingest-${mode}-`);
  const { child, info } = await startHubProcess(dir.path, mode);
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

    const latencies: number[] = [];
    const hubCpuStart = processCpuMs(child.pid!);
    const threadsStart = threadCpuMs(child.pid!);
    const start = process.hrtime.bigint();
    let next = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < sends.length) latencies.push(await post(sends[next++]));
    }));
    const acknowledged = Number(process.hrtime.bigint() - start) / 1e6;
    await waitForDrain(info);
    const total = Number(process.hrtime.bigint() - start) / 1e6;
    const hubCpu = processCpuMs(child.pid!) - hubCpuStart;
    const split = cpuSplit(child.pid!, threadsStart);
    return { acknowledged, total, hubCpu, split, latencies: latencies.sort((a, b) => a - b) };
  } finally {
    child.removeAllListeners('exit');
    const exited = new Promise((r) => child.once('exit', r));
    child.stdin!.end();
    await exited;
    await dir.cleanup();
  }
}

const rate = (records: number, ms: number) => Math.round((records / ms) * 1000).toLocaleString('en');
const latency = (l: number[]) => `p50 ${ms(percentile(l, 50))}, p99 ${ms(percentile(l, 99))}, max ${ms(l[l.length - 1])}`;

async function run(): Promise<void> {
  const bodies: Uint8Array[] = [];
  for (const req of logBatches({ size: BATCH, batches: BATCHES, repositoryFingerprint: FINGERPRINT, startMs: Date.UTC(2026, 7, 1) })) bodies.push(await encodeOtlpRequest(req, 'protobuf'));
  const decode = await decodeOnly(bodies);
  const records = BATCHES * BATCH;
  // the HTTP baseline decodes the same batches, replays included, so both runs answer the same requests
  const sends = [...bodies, ...bodies.slice(0, REPLAYED)];
  const http = await runHub('decode-only', sends);
  const hub = await runHub('ingest', sends);

  const ingestRate = (records / hub.total) * 1000;
  const httpRate = (records / http.total) * 1000;
  const ratio = ingestRate / decode.direct;
  const perCpuSecond = (records / hub.hubCpu) * 1000;
  const usPerRecord = (cpuMs: number) => `${((cpuMs * 1000) / records).toFixed(1)} µs`;
  const { main, busiest, rest } = hub.split;
  report([
    ['batches', `${BATCHES} x ${BATCH} records (+${REPLAYED} replayed deliveries), ${IN_FLIGHT} in flight, protobuf, uncompressed; hub ${hubCommand().label}${INLINE ? ', normalizing on its HTTP thread' : ''}`],
    ['decode-only (baseline)', `${Math.round(decode.direct).toLocaleString('en')} records/s: the direct decoder the ingest path uses, in-process (the ratio's baseline)`],
    ['decode-only (reference)', `${Math.round(decode.reference).toLocaleString('en')} records/s: the protobufjs reference decoder (comparison only)`],
    ['decode-only via HTTP', `${rate(records, http.total)} records/s: the same hub HTTP server, auth and body handling, decoding each batch and answering, storing nothing; hub CPU ${usPerRecord(http.hubCpu)} per record (HTTP thread ${usPerRecord(http.split.main)}); latency ${latency(http.latencies)}`],
    ['ingest, all acknowledged', `${ms(hub.acknowledged)} (${rate(records, hub.acknowledged)} records/s acknowledged)`],
    ['ingest, all normalized', `${ms(hub.total)}: ${Math.round(ingestRate).toLocaleString('en')} records/s (target >= 20,000: ${ingestRate >= 20_000 ? 'met' : 'NOT met'})`],
    ['ingest / decode-only', `${ratio.toFixed(2)}x of the direct decoder (target >= 0.40x: ${ratio >= 0.4 ? 'met' : 'NOT met'}); ${(ingestRate / httpRate).toFixed(2)}x of decode-only via HTTP; ${(ingestRate / decode.reference).toFixed(2)}x of the protobufjs reference`],
    ['request latency', latency(hub.latencies)],
    // wall-clock figures move with the load of this shared machine; CPU-time figures much less
    ['per CPU second', `hub ${Math.round(perCpuSecond).toLocaleString('en')} records per hub CPU-second (all its threads; ${usPerRecord(hub.hubCpu)} per record) vs decode-only ${Math.round(decode.directCpu).toLocaleString('en')}: ${(perCpuSecond / decode.directCpu).toFixed(2)}x`],
    ['hub CPU by thread', `HTTP thread ${Math.round(main)} ms (${usPerRecord(main)}/record), ${INLINE ? 'busiest other thread' : 'normalizer thread'} ${Math.round(busiest)} ms (${usPerRecord(busiest)}), other threads ${Math.round(rest)} ms (${usPerRecord(rest)})`],
    ['machine load', `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on 2 cores`],
  ]);
}

/** Waits until the hub's normalization queue is empty; fails after two minutes (a stuck normalizer must not hang the bench). */
async function waitForDrain(info: HubInfo): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await fetch(`${info.url}/api/v1/telemetry/health`, { headers: { authorization: `Bearer ${info.pat}` } });
    const body = (await res.json()) as { queued: number };
    if (body.queued === 0) return;
    if (Date.now() > deadline) throw new Error(`the hub still has ${body.queued} batches queued after two minutes`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export default { name: 'hub OTLP ingest (512-record protobuf log batches)', run };
